import type { IncomingMessage } from "node:http";
import { invalidGrant } from "../../errors/oauth-error.ts";
import type { Client } from "../client-registry.ts";
import type { DpopProofs, VerifiedProof } from "./dpop-proofs.ts";
import { invalidDpopProof } from "./dpop-errors.ts";

/**
 * The token request's DPoP proof (RFC 9449 §5), checked against the token endpoint's URL (the
 * issuer's, not whatever Host the request came in with); undefined when it sent none, which a
 * client with `require_dpop` may not.
 */
export async function tokenRequestProof(
  proofs: DpopProofs,
  req: IncomingMessage,
  client: Client,
  tokenUrl: string,
): Promise<VerifiedProof | undefined> {
  const proof = await proofs.verify({
    headers: req.headersDistinct.dpop,
    method: req.method ?? "",
    url: tokenUrl,
    site: "token",
    algorithms: client.dpopAlgorithms,
  });
  if (proof === undefined && client.requireDpop) throw invalidDpopProof("this client must send a DPoP proof", "token");
  return proof;
}

/**
 * A grant bound to a key (a code whose authorize request named dpop_jkt, §10; a public client's refresh
 * token, §5) is redeemed only with a proof by that key. No proof: invalid_dpop_proof; a proof by
 * another key: invalid_grant, as for any other grant presented by the wrong party.
 */
export function checkGrantKey(proof: VerifiedProof | undefined, jkt: string | undefined, grant: string): void {
  if (jkt === undefined) return;
  if (proof === undefined) throw invalidDpopProof(`the ${grant} is bound to a DPoP key: send a proof made with it`, "token");
  if (proof.jkt !== jkt) throw invalidGrant(`the ${grant} is bound to another DPoP key`);
}

/**
 * The key a new refresh token is bound to (RFC 9449 §5): a public client's proof key, since nothing
 * else ties its refresh token to it; a confidential client's refresh tokens stay unbound, its client
 * authentication binds them already.
 */
export function refreshTokenKey(client: Pick<Client, "type">, proof: VerifiedProof | undefined): string | undefined {
  return client.type === "public" ? proof?.jkt : undefined;
}
