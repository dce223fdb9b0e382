import type { IncomingMessage } from "node:http";
import type { DpopProofs } from "./dpop-proofs.ts";
import type { Client } from "../client-registry.ts";

/**
 * For the pushed authorization request endpoint (RFC 9449 §10.1): the thumbprint of the key of the
 * request's DPoP proof, checked as at the token endpoint (htm POST, htu `endpointUrl`, single use), or
 * undefined when it sent none; signed with an algorithm the client may use. The PAR endpoint stores it as the request's dpop_jkt (and refuses a
 * dpop_jkt parameter that differs); an invalid proof throws invalid_dpop_proof (400).
 */
export async function proofThumbprintIfPresent(
  proofs: DpopProofs,
  req: IncomingMessage,
  endpointUrl: string,
  client: Pick<Client, "dpopAlgorithms">,
): Promise<string | undefined> {
  const proof = await proofs.verify({
    headers: req.headersDistinct.dpop,
    method: req.method ?? "",
    url: endpointUrl,
    site: "token",
    algorithms: client.dpopAlgorithms,
  });
  return proof?.jkt;
}
