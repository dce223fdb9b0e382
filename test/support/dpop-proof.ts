import { randomUUID } from "node:crypto";
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { accessTokenHash } from "../../src/oauth/dpop/jwk-thumbprint.ts";

/** A client's DPoP key pair (openid-client's getDPoPHandle takes it as is), with the public JWK a proof embeds and its thumbprint. */
export interface DpopKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
  jkt: string;
  alg: string;
}

export async function dpopKey(alg = "ES256"): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, "sha256"), alg };
}

/** What a hand-made proof says; anything may be set wrong on purpose (an attack test). */
export interface ProofClaims {
  htm: string;
  htu: string;
  iat?: number;
  jti?: string;
  /** The access token whose hash goes into ath. */
  accessToken?: string;
  nonce?: string;
  /** Claims to set or (undefined) remove after the defaults. */
  override?: Record<string, unknown>;
  /** Header members to set instead of the defaults (typ, jwk). */
  header?: Record<string, unknown>;
  /** Sign with this key while embedding `key`'s public JWK (a proof not signed by its key). */
  signWith?: CryptoKey;
}

/** A DPoP proof JWT (RFC 9449 §4.2) made by hand, for the attacks openid-client would never send. */
export async function dpopProof(key: DpopKey, claims: ProofClaims): Promise<string> {
  const payload: Record<string, unknown> = {
    htm: claims.htm,
    htu: claims.htu,
    iat: claims.iat ?? Math.floor(Date.now() / 1000),
    jti: claims.jti ?? randomUUID(),
    ...(claims.accessToken !== undefined && { ath: accessTokenHash(claims.accessToken) }),
    ...(claims.nonce !== undefined && { nonce: claims.nonce }),
  };
  for (const [name, value] of Object.entries(claims.override ?? {})) {
    if (value === undefined) delete payload[name];
    else payload[name] = value;
  }
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, typ: "dpop+jwt", jwk: key.publicJwk, ...claims.header })
    .sign(claims.signWith ?? key.privateKey);
}
