/** The TOTP method's settings (`methods.totp` in config/login.yaml), after ajv applied the defaults. */
export interface TotpSettings {
  /** The name authenticator apps show next to the account (the otpauth:// issuer). */
  issuer: string;
  /** Code length of new enrollments. */
  digits: 6 | 8;
  /** Seconds per time step of new enrollments. */
  period: number;
}

/** JSON Schema of TotpSettings. Digits and period apply to new enrollments; each enrollment keeps its own. */
export const totpConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    issuer: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      pattern: "^[^:]+$",
      default: "Portcullis",
      description: "The issuer name authenticator apps show (no ':').",
    },
    digits: { type: "integer", enum: [6, 8], default: 6, description: "Code length for new enrollments." },
    period: { type: "integer", minimum: 15, maximum: 120, default: 30, description: "Seconds per time step for new enrollments." },
  },
} as const;
