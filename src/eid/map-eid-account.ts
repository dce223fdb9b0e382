import type { EidUpstream } from "./eid-upstream.ts";
import { EidError } from "./eid-error.ts";

/** An eID account as this provider knows it: its local sub and its claims under local names. */
export interface EidAccount {
  sub: string;
  claims: Record<string, unknown>;
  /** This provider's acr for the login (eid-acr.ts performedAcr): set once the login's ID token was read. */
  acr?: string;
}

/** OIDC Core §2: sub is at most 255 ASCII characters; anything longer or empty is not a usable id. */
const MAX_SUB_LENGTH = 255;

/**
 * The local account for an upstream login: sub = sub_prefix + the upstream's sub, and each mapped claim
 * (local name: upstream name) taken from the userinfo answer, else from the ID token. Claims the mapping
 * does not name are dropped, and a missing upstream claim is simply absent. A login without a usable sub
 * is refused: an account must be the same person at every login.
 */
export function mapEidAccount(
  id: string,
  upstream: Pick<EidUpstream, "sub_prefix" | "claims">,
  idToken: Record<string, unknown>,
  userinfo: Record<string, unknown> = {},
): EidAccount {
  const upstreamSub = idToken.sub;
  if (typeof upstreamSub !== "string" || upstreamSub === "" || upstreamSub.length > MAX_SUB_LENGTH) {
    throw new EidError("invalid_response", id, "the eID provider did not say who logged in (no usable sub)");
  }
  const claims: Record<string, unknown> = {};
  for (const [local, remote] of Object.entries(upstream.claims)) {
    const value = Object.hasOwn(userinfo, remote) ? userinfo[remote] : Object.hasOwn(idToken, remote) ? idToken[remote] : undefined;
    if (value !== undefined && value !== null) claims[local] = value;
  }
  return { sub: upstream.sub_prefix + upstreamSub, claims };
}
