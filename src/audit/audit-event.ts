/**
 * The audit trail's events: one per security-relevant act, for auditors. Each names what happened and
 * who and what it concerned, never a secret, password, code or token: the fields below are ids (sub,
 * client_id, sid, jti, kid, a refresh family id), names from the configuration (flow, method, grant) and
 * state names — no field can hold a credential, so none can leak one (test/audit/audit-redaction.test.ts
 * checks the written lines against the real secrets of real logins). `type` is the stable name an auditor
 * filters on; the rest are the act's facts. The sink adds `time`.
 */
export type AuditEvent =
  | LoginEvent
  | FactorEvent
  | TokenIssuedEvent
  | { type: "session.started"; sid: string; sub: string; login_id?: string }
  | { type: "refresh_token.reuse_detected"; family: string; client_id?: string; sub?: string }
  /** A redeemed code presented again (by `client_id`): the access token `jti` and refresh `family` it issued are revoked. */
  | { type: "authorization_code.reuse_detected"; jti: string; family?: string; client_id: string }
  | ClientAuthFailure
  /**
   * A client proved itself (src/oauth/authenticate-client.ts): by which method, and with which of its
   * secrets (`secret_fingerprint`, the first 8 hex digits of its hash in clients.yaml) or keys (`kid`), so an operator
   * sees when the old secret of a rotation has gone quiet. Not recorded for a public client (it proved nothing).
   */
  | { type: "client.authenticated"; client_id: string; method: string; secret_fingerprint?: string; kid?: string }
  /** A revocation request, or (`signout_id`) a sign-out of the user by an operator that ended the token. */
  | {
      type: "token.revoked";
      client_id: string;
      token_type: "access_token" | "refresh_token";
      jti?: string;
      family?: string;
      sub?: string;
      signout_id?: string;
    }
  /** `reason` `signed_out`: an operator's sign-out of the user (`signout_id`) ended it. */
  | { type: "session.ended"; sid: string; sub: string; reason: string; signout_id?: string }
  | { type: "logout.delivered"; sid: string; client_id: string; channel: "back" | "front"; ok: boolean }
  | { type: "lockout"; sub: string; method: string }
  | { type: "enrollment.changed"; sub: string; method: string; change: "added" | "replaced" | "removed" }
  | { type: "config.reloaded"; policy_hash: string; ok: boolean; errors?: number }
  /** `unpublished`: retired and taken out of the JWKS at once (`keys retire --unpublish`, a suspected compromise). */
  | { type: "key.rotated"; kid: string; status: "next" | "current" | "retired" | "unpublished"; by: "schedule" | "operator" }
  | UserSignedOutEvent
  /** An operator listed the user's sessions and tokens (`portcullis users sessions`, the admin API). */
  | ({ type: "user.sessions_listed"; sub: string } & AuditActor)
  /**
   * A call of the admin API, allowed or refused (`status`): the calling client when its token was valid,
   * the user as the path named it (the act itself is its own event: user.signed_out, user.sessions_listed).
   */
  | { type: "admin.request"; operation: "sessions" | "sign_out" | "unknown"; status: number; client_id?: string; user?: string };

/**
 * A client (at the token, revocation or pushed authorization request endpoint) failed to authenticate:
 * `client_id` only when it is a registered one (an unknown id is whatever was typed, which could be a
 * secret); the method it tried; why (`reason`: unknown_client, method_not_allowed, wrong_secret,
 * expired_secret, malformed, or an assertion's rejection such as wrong_audience or replayed); the expired
 * secret's fingerprint or the assertion's kid when they are known.
 */
export type ClientAuthFailure = {
  type: "client.authentication_failed";
  client_id?: string;
  method?: string;
  reason?: string;
  secret_fingerprint?: string;
  kid?: string;
};

/**
 * Who did an operator's act: the CLI, run by `operator` (the operating-system account), or a client of
 * the admin API (its client_credentials token's `client_id`).
 */
export type AuditActor = { by: "cli"; operator: string } | { by: "admin_api"; client_id: string };

/**
 * An operator signed the user out everywhere (`portcullis users sign-out`, the admin API): how many of
 * each thing it ended. Each one ended is its own event with the same `signout_id` (session.ended,
 * token.revoked, and the logout.delivered of each session), so `audit trace <signout_id>` shows them all.
 */
export type UserSignedOutEvent = {
  type: "user.signed_out";
  sub: string;
  signout_id: string;
  sessions: number;
  refresh_families: number;
  access_tokens: number;
} & AuditActor;

/**
 * A login that ended, or an attempt in it that was refused (a factor failed; the user may try again on
 * the same page): the flow, the exact machine version (its hash) and the flow's states it went through.
 * `login_id` ties a success to the SSO session it started (session.started).
 */
export interface LoginEvent {
  type: "login.succeeded" | "login.failed";
  /** The flow's id (an eID login's is its login type's, `login_type.eID`); `extension:<id>` for an extension's own login. */
  flow_id: string;
  /** The flow machine's definition hash; absent for a login that ran no machine here (an extension's, the password grant). */
  machine_hash?: string;
  path: string[];
  login_id?: string;
  client_id?: string;
  sub?: string;
  amr?: string[];
  acr?: string;
  /** The login type the request selected, as login.yaml declares it (MfaTotp, MyVendor): two types may run one flow. */
  login_type?: string;
  /** The authorize request's acr_values as sent (asked). */
  acr_values?: string[];
  /** login.succeeded: the login.yaml acr_values declarations the login met (the values asked, as declared; voluntary ones are not). */
  acr_values_met?: string[];
  /**
   * Why it failed: the page's message key (e.g. method.password.wrong), a protocol error, or an eID
   * login's failure at its upstream (access_denied, unavailable, invalid_callback, invalid_response).
   */
  reason?: string;
}

/** A factor method passed or refused within a login (or in a first-use enrollment inside one). */
export interface FactorEvent {
  type: "factor.passed" | "factor.failed";
  method: string;
  flow_id: string;
  /** The login it happened in (its login.succeeded or login.failed has the same). */
  login_id?: string;
  sub?: string;
  reason?: string;
}

/** One token response: the access token's jti, and which other tokens came with it. */
export interface TokenIssuedEvent {
  type: "token.issued";
  grant: string;
  client_id: string;
  sub: string;
  jti: string;
  amr?: string[];
  acr?: string;
  sid?: string;
  /** The refresh token family, when a refresh token was issued or rotated. */
  family?: string;
  /** The thumbprint of the DPoP key the access token is bound to (RFC 9449), when it is: a public key's, never a secret. */
  dpop_jkt?: string;
  /**
   * The login whose authentication the tokens speak for (its login.succeeded has the same): on a code,
   * also when the code came from an SSO session that a later login in the same browser renewed, so that
   * `audit trace` of a token shows the login that made it, not the session's latest. Refreshes reach it
   * through their family.
   */
  login_id?: string;
  id_token: boolean;
  refresh_token: boolean;
}

export type AuditEventType = AuditEvent["type"];
