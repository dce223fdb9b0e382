/**
 * The audit trail's events: one per security-relevant act, for auditors. Each names what happened and
 * who and what it concerned, never a secret, password, code or token (only token ids: jti, sid).
 * `type` is the stable name an auditor filters on; the rest are the act's facts.
 */
export type AuditEvent =
  | LoginEvent
  | FactorEvent
  | TokenIssuedEvent
  | { type: "refresh_token.reuse_detected"; client_id: string; sub: string; family: string }
  | { type: "token.revoked"; client_id: string; token_type: "access_token" | "refresh_token"; jti?: string; sub?: string }
  | { type: "session.ended"; sid: string; sub: string; reason: string }
  | { type: "logout.delivered"; sid: string; client_id: string; channel: "back" | "front"; ok: boolean }
  | { type: "lockout"; sub: string; method: string }
  | { type: "enrollment.changed"; sub: string; method: string; change: "added" | "removed" | "reset" }
  | { type: "config.reloaded"; policy_hash: string; ok: boolean; errors?: number }
  | { type: "key.rotated"; kid: string; status: "next" | "current" | "retired"; by: "schedule" | "operator" };

/** A login that ended: the flow, the exact machine version (its hash) and the states it went through. */
export interface LoginEvent {
  type: "login.succeeded" | "login.failed";
  flow_id: string;
  machine_hash: string;
  path: string[];
  client_id?: string;
  sub?: string;
  sid?: string;
  amr?: string[];
  acr?: string;
  reason?: string;
}

export interface FactorEvent {
  type: "factor.passed" | "factor.failed";
  method: string;
  flow_id: string;
  sub?: string;
}

export interface TokenIssuedEvent {
  type: "token.issued";
  grant: string;
  client_id: string;
  sub?: string;
  amr?: string[];
  acr?: string;
  jti: string;
  sid?: string;
  token_type: "access_token" | "id_token" | "refresh_token";
}

export type AuditEventType = AuditEvent["type"];
