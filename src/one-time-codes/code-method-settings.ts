import { parseDuration } from "../time/duration.ts";
import type { SendPolicy } from "./send-limits.ts";

/** The settings every code method (SMS, e-mail) has in login.yaml, besides its own. */
export interface CodeMethodSettings<Delivery = { kind: string }> {
  delivery: Delivery;
  /** How long a code is valid (default 5m). */
  code_lifetime: string;
  limits: {
    /** Least time between two codes for one login (default 30s). */
    resend_after: string;
    /** Codes per account within `window` (default 10). */
    per_account: number;
    /** Codes per client address within `window` (default 30). */
    per_address: number;
    /** Counting window of the two budgets (default 1h). */
    window: string;
  };
}

const duration = (units: string, fallback: string, description: string) => ({
  type: "string",
  pattern: `^[1-9][0-9]*(${units})$`,
  default: fallback,
  description,
});

/**
 * The JSON Schema of a code method's settings: `delivery` is one of the given adapter schemas (no
 * default: a method without a configured delivery does not start), `extra` adds the method's own keys.
 */
export function codeMethodSchema(deliverySchemas: readonly object[], extra: Record<string, object> = {}): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    required: ["delivery"],
    properties: {
      delivery: {
        type: "object",
        oneOf: deliverySchemas,
        description: "How codes are delivered. `kind: outbox` is for development only and must be chosen explicitly.",
      },
      code_lifetime: duration("s|m", "5m", "How long a code is valid."),
      limits: {
        type: "object",
        additionalProperties: false,
        default: {},
        description: "How often codes may be sent.",
        properties: {
          resend_after: duration("s|m", "30s", "Least time between two codes for one login (a re-send)."),
          per_account: { type: "integer", minimum: 1, default: 10, description: "Codes sent per account within `window`." },
          per_address: { type: "integer", minimum: 1, default: 30, description: "Codes sent per client address within `window`." },
          window: duration("m|h|d", "1h", "Counting window of the per-account and per-address budgets."),
        },
      },
      ...extra,
    },
  };
}

/** The limits in the units SendLimits works in. */
export function sendPolicy(settings: CodeMethodSettings): SendPolicy {
  const { limits } = settings;
  return {
    resendAfterMs: parseDuration(limits.resend_after) * 1000,
    perAccount: limits.per_account,
    perAddress: limits.per_address,
    windowMs: parseDuration(limits.window) * 1000,
  };
}
