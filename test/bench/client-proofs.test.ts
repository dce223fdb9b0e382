/** The bench's DPoP proofs and client assertions (bench/client-proofs.ts): valid, verifiable, fresh on every request. */
import { createHash } from "node:crypto";
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { benchKey, JWT_BEARER_ASSERTION, proofMaker } from "../../bench/client-proofs.ts";

const HTU = "http://localhost:3000/connect/token";

describe("benchKey", () => {
  it("derives the same P-256 key from the same label in every process, and another from another label", async () => {
    const a = benchKey("bench-dpop");
    expect(benchKey("bench-dpop").publicJwk).toEqual(a.publicJwk);
    expect(benchKey("bench-pkjwt").publicJwk.x).not.toBe(a.publicJwk.x);
    expect(a.publicJwk).toMatchObject({ kty: "EC", crv: "P-256", kid: "bench-dpop" });
    // The public JWK holds no private member.
    expect(Object.keys(a.publicJwk).sort()).toEqual(["crv", "kid", "kty", "x", "y"]);
    // The private key is the public JWK's: what it signs, the JWK verifies (below); their thumbprints agree.
    const fromPrivate = a.privateKey.export({ format: "jwk" });
    expect(await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x: fromPrivate.x!, y: fromPrivate.y! })).toBe(
      await calculateJwkThumbprint(a.publicJwk),
    );
  });
});

describe("proofMaker", () => {
  it("makes a DPoP proof that verifies with its embedded key, for POST htu, with iat now", async () => {
    const make = proofMaker({ dpop: { key: "bench-dpop", htu: HTU } }, () => 1_800_000_000_500);
    const { headers, form } = make();
    expect(form).toEqual({});
    const { payload, protectedHeader } = await jwtVerify(headers.dpop!, EmbeddedJWK, {
      typ: "dpop+jwt",
      algorithms: ["ES256"],
      currentDate: new Date(1_800_000_000_000),
    });
    expect(protectedHeader.jwk).toEqual({
      kty: "EC",
      crv: "P-256",
      x: benchKey("bench-dpop").publicJwk.x,
      y: benchKey("bench-dpop").publicJwk.y,
    });
    expect(payload).toMatchObject({ htm: "POST", htu: HTU, iat: 1_800_000_000 });
    expect(payload.ath).toBeUndefined();
    expect(typeof payload.jti).toBe("string");
  });

  it("puts the SHA-256 of the presented access token in ath", async () => {
    const { headers } = proofMaker({ dpop: { key: "bench-dpop", htu: HTU } })("an-access-token");
    const { payload } = await jwtVerify(headers.dpop!, EmbeddedJWK, { typ: "dpop+jwt" });
    expect(payload.ath).toBe(createHash("sha256").update("an-access-token").digest("base64url"));
  });

  it("makes a client assertion for the issuer, signed by the client's key and named by its kid", async () => {
    const key = benchKey("bench-pkjwt");
    const make = proofMaker({ assertion: { clientId: "bench-pkjwt-service", key: "bench-pkjwt", audience: "http://localhost:3000" } });
    const { headers, form } = make();
    expect(headers).toEqual({});
    expect(form.client_assertion_type).toBe(JWT_BEARER_ASSERTION);
    expect(decodeProtectedHeader(form.client_assertion!)).toEqual({ alg: "ES256", kid: "bench-pkjwt" });
    const { payload } = await jwtVerify(form.client_assertion!, await importJWK(key.publicJwk, "ES256"), {
      issuer: "bench-pkjwt-service",
      subject: "bench-pkjwt-service",
      audience: "http://localhost:3000",
    });
    expect(payload.exp! - payload.iat!).toBe(60);
    // Signed by this key and no other.
    await expect(jwtVerify(form.client_assertion!, await importJWK(benchKey("another").publicJwk, "ES256"))).rejects.toThrow();
  });

  it("never repeats a jti: every request gets a fresh proof and a fresh assertion", async () => {
    const make = proofMaker({
      dpop: { key: "bench-dpop", htu: HTU },
      assertion: { clientId: "c", key: "bench-pkjwt", audience: "http://localhost:3000" },
    });
    const jtis = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { headers, form } = make();
      for (const jwt of [headers.dpop!, form.client_assertion!]) {
        jtis.add(JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()).jti as string);
      }
    }
    expect(jtis.size).toBe(400);
  });
});
