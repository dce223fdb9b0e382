import { ConfigError, parseDuration } from "../../../src/plugin-contract/index.ts";

/** The FIDO2 method's settings (`methods.fido` in config/login.yaml), after ajv applied the defaults. */
export interface FidoSettings {
  /** The WebAuthn relying-party id: the issuer's host name when absent. */
  rp_id?: string;
  /** The name authenticators show. */
  rp_name: string;
  /** The origins the login pages are served from: the issuer's origin when absent. */
  origins?: string[];
  /** Whether the authenticator must verify the user (PIN, biometrics) or only see them present. */
  user_verification: "required" | "preferred" | "discouraged";
  /** How long a challenge stays usable (and what the browser is told to wait). */
  timeout: string;
}

/** JSON Schema of FidoSettings. */
export const fidoConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    rp_id: {
      type: "string",
      pattern: "^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$",
      description: "WebAuthn RP ID: a domain equal to, or a parent of, the host of every origin. Default: the issuer's host.",
    },
    rp_name: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      default: "Portcullis",
      description: "The name authenticators show for this service.",
    },
    origins: {
      type: "array",
      minItems: 1,
      items: { type: "string", pattern: "^https?://[^/?#\\s]+$" },
      description: "Origins (scheme://host[:port], no path) whose pages may use the credentials. Default: the issuer's origin.",
    },
    user_verification: {
      type: "string",
      enum: ["required", "preferred", "discouraged"],
      default: "preferred",
      description: "required: the authenticator must verify the user (PIN, biometrics); otherwise presence is enough.",
    },
    timeout: { type: "string", pattern: "^[0-9]+(s|m)$", default: "2m", description: "How long a challenge stays usable." },
  },
} as const;

/** The relying party as the WebAuthn calls need it, settled once per provider. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
  userVerification: FidoSettings["user_verification"];
  timeoutMs: number;
}

/**
 * The relying party from the settings, the RP id and origins defaulting to the issuer's host and
 * origin. A browser refuses an RP id that is neither an origin's host nor a parent domain of it, so
 * such a configuration is a config error at start-up rather than a login that can never work.
 * (Browsers also refuse IP addresses as RP ids: serve WebAuthn from a host name, e.g. localhost.)
 */
export function relyingParty(settings: FidoSettings, issuer: string): RelyingParty {
  const issuerUrl = new URL(issuer);
  const id = settings.rp_id ?? issuerUrl.hostname;
  const origins = settings.origins ?? [issuerUrl.origin];
  const foreign = origins.filter((origin) => {
    const host = new URL(origin).hostname;
    return host !== id && !host.endsWith(`.${id}`);
  });
  if (foreign.length > 0) {
    throw new ConfigError([
      {
        file: "login.yaml",
        path: "methods.fido.rp_id",
        message: `the RP id "${id}" is neither the host of ${foreign.join(", ")} nor a parent domain of it; set rp_id or origins`,
      },
    ]);
  }
  return {
    id,
    name: settings.rp_name,
    origins,
    userVerification: settings.user_verification,
    timeoutMs: parseDuration(settings.timeout) * 1000,
  };
}
