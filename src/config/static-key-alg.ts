import { createPrivateKey } from "node:crypto";
import { signingAlgOfKey, type SigningAlg } from "../crypto/signing-alg.ts";
import type { StaticKeyConfig } from "./types.generated.ts";

/**
 * The algorithm a provider.yaml static key is published with: its `alg`, else the one its key type
 * signs (RS256 for RSA, ES256 for P-256). Undefined when the PEM is unreadable or cannot sign that
 * algorithm: the key-material rule reports those, naming the key.
 */
export function staticKeyAlg(key: Pick<StaticKeyConfig, "private_key_pem" | "alg">): SigningAlg | undefined {
  let privateKey;
  try {
    privateKey = createPrivateKey(key.private_key_pem);
  } catch {
    return undefined;
  }
  const fits = signingAlgOfKey(privateKey, key.alg);
  return "alg" in fits ? fits.alg : undefined;
}
