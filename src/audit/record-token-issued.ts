import type { AuditTrail } from "./audit-trail.ts";

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
  issued: { client_id: string; sub: string; jti: string; amr?: string[]; acr?: string; sid?: string; family?: string },
  response: R,
): R {
  const facts = Object.fromEntries(Object.entries(issued).filter(([, value]) => value !== undefined)) as typeof issued;
  audit.record({ type: "token.issued", grant, ...facts, id_token: response.id_token !== undefined, refresh_token: response.refresh_token !== undefined });
  return response;
}
