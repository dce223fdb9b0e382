import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { ProofKeys } from "../../../src/oauth/dpop/proof-keys.ts";

describe("ProofKeys: DPoP proof keys imported once each", () => {
  it.each([["ES256"], ["PS256"], ["EdDSA"]])("names a %s key by its RFC 7638 thumbprint, as jose computes it", async (alg) => {
    const jwk = await exportJWK((await generateKeyPair(alg, { extractable: true })).publicKey);
    const proofKey = new ProofKeys().keyOf(jwk as Record<string, unknown>);
    expect(proofKey.jkt).toBe(await calculateJwkThumbprint(jwk, "sha256"));
    expect(proofKey.key.type).toBe("public");
  });

  it("imports a key once, whatever order its members come in and whatever else the header adds", async () => {
    const jwk = (await exportJWK((await generateKeyPair("ES256")).publicKey)) as Record<string, string>;
    const keys = new ProofKeys();
    const first = keys.keyOf(jwk);
    const respelled = { y: jwk.y, use: "sig", alg: "ES256", x: jwk.x, kty: "EC", crv: "P-256" };
    expect(keys.keyOf(respelled)).toBe(first);
    // Another key never reaches that entry.
    const other = (await exportJWK((await generateKeyPair("ES256")).publicKey)) as Record<string, string>;
    expect(keys.keyOf(other).jkt).not.toBe(first.jkt);
  });

  it.each([
    [{ kty: "oct", k: "c2VjcmV0" }],
    [{ kty: "EC", crv: "P-256", x: "AA" }],
    [{ kty: "RSA", n: 5, e: "AQAB" }],
    [{ kty: "toString" }],
    [{}],
  ])("refuses what is not a public EC, OKP or RSA key: %j", (jwk) => {
    expect(() => new ProofKeys().keyOf(jwk as Record<string, unknown>)).toThrow();
  });
});
