import type { AuditTrail } from "./audit-trail.ts";
import type { TokenIssuedEvent } from "./audit-event.ts";

/** A token response as the audit trail sees it: which tokens it carries, never the tokens. */
interface IssuedTokens {
  access_token: string;
  id_token?: string;
  refresh_token?: string;
}

/**
 * Records one token response (token.issued): the grant, client, user, the access token's jti and the
 * authentication it speaks for; whether an ID token and a refresh token came with it (and the refresh
 * family). Returns the response, so a grant ends with `return recordTokenIssued(...)`.
 */
export function recordTokenIssued<R extends IssuedTokens>(
  audit: AuditTrail,
  grant: string,
  issued: {
    client_id: string;
    sub: string;
    jti: string;
    amr?: string[] | undefined;
    acr?: string | undefined;
    sid?: string | undefined;
    family?: string | undefined;
    login_id?: string | undefined;
    dpop_jkt?: string | undefined;
  },
  response: R,
): R {
  // Built field by field rather than filtered through Object.entries: this runs on every token response.
  const event = { type: "token.issued", grant, client_id: issued.client_id, sub: issued.sub, jti: issued.jti } as TokenIssuedEvent;
  if (issued.amr !== undefined) event.amr = issued.amr;
  if (issued.acr !== undefined) event.acr = issued.acr;
  if (issued.sid !== undefined) event.sid = issued.sid;
  if (issued.family !== undefined) event.family = issued.family;
  if (issued.login_id !== undefined) event.login_id = issued.login_id;
  if (issued.dpop_jkt !== undefined) event.dpop_jkt = issued.dpop_jkt;
  event.id_token = response.id_token !== undefined;
  event.refresh_token = response.refresh_token !== undefined;
  audit.record(event);
  return response;
}
