/**
 * DPoP proof verification (RFC 9449 §4.3) on its own, on an embedded store and a clock the tests move:
 * every check attacked with a hand-made proof, and the nonces of §8.
 */
import { generateKeyPairSync, randomBytes, randomUUID, sign } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { DpopNonces } from "../../../src/oauth/dpop/dpop-nonces.ts";
import { DpopProofs, type ProofRequest } from "../../../src/oauth/dpop/dpop-proofs.ts";
import { ProofReplay } from "../../../src/oauth/dpop/proof-replay.ts";
import { proofThumbprintIfPresent } from "../../../src/oauth/dpop/proof-thumbprint.ts";
import { OAuthError } from "../../../src/errors/oauth-error.ts";
import { DPOP_ALGORITHMS } from "../../../src/crypto/dpop-algorithms.ts";
import { embeddedStoreForSuite } from "../../support/embedded-test-store.ts";
import { dpopKey, dpopProof, type DpopKey } from "../../support/dpop-proof.ts";

const URL_ = "https://op.example/connect/token";
const store = embeddedStoreForSuite("dpop-proofs-");
let now = Date.parse("2026-11-28T12:00:00Z");
const clock = () => now;
const nowS = () => Math.floor(now / 1000);

function proofs(requireNonce = false, key = randomBytes(32)) {
  return new DpopProofs({ replay: new ProofReplay(store()), nonces: new DpopNonces(key, clock), requireNonce, clock });
}

const request = (proof: string | string[], extra: Partial<ProofRequest> = {}): ProofRequest => ({
  headers: Array.isArray(proof) ? proof : [proof],
  method: "POST",
  url: URL_,
  site: "token",
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  return err as OAuthError;
}

async function expectInvalid(verifier: DpopProofs, proof: string | string[], extra: Partial<ProofRequest> = {}) {
  const err = await refusal(verifier.verify(request(proof, extra)));
  expect({ error: err.error, status: err.status }).toEqual({ error: "invalid_dpop_proof", status: 400 });
  return err;
}

describe("a valid proof", () => {
  it("proves its key's thumbprint, is accepted once, and no header means no proof", async () => {
    const verifier = proofs();
    const key = await dpopKey();
    const proof = await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS() });
    expect(await verifier.verify(request(proof))).toEqual({ jkt: key.jkt });
    await expectInvalid(verifier, proof);
    expect(await verifier.verify({ ...request(proof), headers: undefined })).toBeUndefined();
  });

  it("refuses an algorithm the sender may not use (a FAPI 2.0 client's RS256), naming the ones it may", async () => {
    const key = await dpopKey("RS256");
    const err = await expectInvalid(proofs(), await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS() }), {
      algorithms: ["ES256", "PS256", "EdDSA"],
    });
    expect(err.description).toBe("this client's DPoP proofs must be signed with ES256, PS256, EdDSA");
  });

  it.each(["ES256", "PS256", "RS256", "EdDSA"])("takes %s", async (alg) => {
    const key = await dpopKey(alg);
    expect(await proofs().verify(request(await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS() })))).toEqual({ jkt: key.jkt });
  });

  it("compares htu without query and fragment, after URL normalisation", async () => {
    const key = await dpopKey();
    const htu = "HTTPS://OP.example:443/connect/token?x=1#frag";
    expect(await proofs().verify(request(await dpopProof(key, { htm: "POST", htu, iat: nowS() })))).toEqual({ jkt: key.jkt });
  });

  it("accepts an iat up to 70 seconds old and 10 seconds ahead", async () => {
    const key = await dpopKey();
    const verifier = proofs();
    for (const iat of [nowS() - 70, nowS() + 10])
      expect(await verifier.verify(request(await dpopProof(key, { htm: "POST", htu: URL_, iat })))).toBeDefined();
  });
});

describe("refused proofs (invalid_dpop_proof)", () => {
  let key: DpopKey;
  const make = async (claims: Partial<Parameters<typeof dpopProof>[1]> = {}) => {
    key ??= await dpopKey();
    return dpopProof(key, { htm: "POST", htu: URL_, iat: nowS(), ...claims });
  };

  it("two DPoP headers", async () => {
    await expectInvalid(proofs(), [await make(), await make()]);
  });
  it("a typ other than dpop+jwt", async () => {
    await expectInvalid(proofs(), await make({ header: { typ: "JWT" } }));
  });
  it("no embedded key", async () => {
    await expectInvalid(proofs(), await make({ header: { jwk: undefined } }));
  });
  it("a symmetric algorithm", async () => {
    const secret = randomBytes(32);
    const proof = await new SignJWT({ htm: "POST", htu: URL_, iat: nowS(), jti: randomUUID() })
      // jose's types forbid a symmetric key in a header; an attacker's proof is not bound by them.
      .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: { kty: "oct", k: secret.toString("base64url") } as never })
      .sign(secret);
    await expectInvalid(proofs(), proof);
  });
  it("a private key embedded", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const proof = await new SignJWT({ htm: "POST", htu: URL_, iat: nowS(), jti: randomUUID() })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: privateJwk })
      .sign(privateKey);
    await expectInvalid(proofs(), proof);
  });
  it("a key that does not fit its alg: a P-256 key headed PS256, an RSA key headed ES256, an RSA key under 2048 bits", async () => {
    const ec = await dpopKey("ES256");
    const rsa = await dpopKey("RS256");
    // jose will not sign a mismatch: the header is relabelled after signing, as an attacker would.
    const relabel = (proof: string, alg: string) => {
      const [header, ...rest] = proof.split(".");
      const parsed = JSON.parse(Buffer.from(header!, "base64url").toString());
      return [Buffer.from(JSON.stringify({ ...parsed, alg })).toString("base64url"), ...rest].join(".");
    };
    await expectInvalid(proofs(), relabel(await dpopProof(ec, { htm: "POST", htu: URL_, iat: nowS() }), "PS256"));
    await expectInvalid(proofs(), relabel(await dpopProof(rsa, { htm: "POST", htu: URL_, iat: nowS() }), "ES256"));
    // jose will not make a key under 2048 bits either: node:crypto makes and signs with one.
    const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const header = { alg: "RS256", typ: "dpop+jwt", jwk: weak.publicKey.export({ format: "jwk" }) };
    const claims = { htm: "POST", htu: URL_, iat: nowS(), jti: randomUUID() };
    const input = [header, claims].map((part) => Buffer.from(JSON.stringify(part)).toString("base64url")).join(".");
    const small = `${input}.${sign("sha256", Buffer.from(input), weak.privateKey).toString("base64url")}`;
    await expectInvalid(proofs(), small);
  });
  it("an exp already past, or an nbf still ahead", async () => {
    await expectInvalid(proofs(), await make({ override: { exp: nowS() - 1 } }));
    await expectInvalid(proofs(), await make({ override: { nbf: nowS() + 30 } }));
  });
  it("signed by another key than the one it embeds", async () => {
    const other = await dpopKey();
    await expectInvalid(proofs(), await make({ signWith: other.privateKey }));
  });
  it("another method", async () => {
    await expectInvalid(proofs(), await make({ htm: "GET" }));
  });
  it("another URL", async () => {
    await expectInvalid(proofs(), await make({ htu: "https://op.example/connect/userinfo" }));
    await expectInvalid(proofs(), await make({ htu: "https://evil.example/connect/token" }));
  });
  it("a stale iat, one from the future, or none", async () => {
    await expectInvalid(proofs(), await make({ iat: nowS() - 71 }));
    await expectInvalid(proofs(), await make({ iat: nowS() + 11 }));
    await expectInvalid(proofs(), await make({ override: { iat: undefined } }));
  });
  it("no jti, or a jti long enough to fill the store", async () => {
    await expectInvalid(proofs(), await make({ override: { jti: undefined } }));
    await expectInvalid(proofs(), await make({ jti: "x".repeat(257) }));
  });
  it("with an access token: no ath, or the ath of another token", async () => {
    await expectInvalid(proofs(), await make(), { accessToken: "the-token" });
    await expectInvalid(proofs(), await make({ accessToken: "another-token" }), { accessToken: "the-token" });
  });
  it("at a resource: 401 with a DPoP challenge naming the algorithms", async () => {
    const err = await refusal(proofs().verify(request(await make({ htm: "GET" }), { site: "resource" })));
    expect(err.status).toBe(401);
    expect(err.headers["WWW-Authenticate"]).toMatch(
      /^DPoP realm="portcullis", error="invalid_dpop_proof", .*algs="ES256 PS256 RS256 EdDSA"$/,
    );
  });
  it("the same jti with another key is another proof: jtis are per key", async () => {
    const jti = randomUUID();
    const verifier = proofs();
    const a = await dpopKey();
    const b = await dpopKey();
    expect(await verifier.verify(request(await dpopProof(a, { htm: "POST", htu: URL_, iat: nowS(), jti })))).toBeDefined();
    expect(await verifier.verify(request(await dpopProof(b, { htm: "POST", htu: URL_, iat: nowS(), jti })))).toBeDefined();
  });
});

describe("server nonces (RFC 9449 §8)", () => {
  it("refuses a proof without the nonce with use_dpop_nonce and the nonce to use, then takes it", async () => {
    const verifier = proofs(true);
    const key = await dpopKey();
    const err = await refusal(verifier.verify(request(await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS() }))));
    expect(err.error).toBe("use_dpop_nonce");
    const nonce = err.headers["DPoP-Nonce"]!;
    expect(nonce).toBe(verifier.nonce());
    expect(await verifier.verify(request(await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS(), nonce })))).toEqual({ jkt: key.jkt });
  });

  it("accepts the previous step's nonce, not an older one nor a made-up one, and another node with the same secret agrees", async () => {
    const secret = randomBytes(32);
    const verifier = proofs(true, secret);
    const otherNode = proofs(true, secret);
    const key = await dpopKey();
    const nonce = verifier.nonce()!;
    const withNonce = async (n: string) => request(await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS(), nonce: n }));
    now += 300_000;
    expect(await otherNode.verify(await withNonce(nonce))).toBeDefined();
    now += 300_000;
    expect((await refusal(verifier.verify(await withNonce(nonce)))).error).toBe("use_dpop_nonce");
    expect((await refusal(verifier.verify(await withNonce("made-up")))).error).toBe("use_dpop_nonce");
    // A node with another secret knows none of this deployment's nonces.
    expect((await refusal(proofs(true).verify(await withNonce(verifier.nonce()!)))).error).toBe("use_dpop_nonce");
  });
});

describe("proofThumbprintIfPresent (for the pushed authorization request endpoint)", () => {
  const PAR = "https://op.example/connect/par";
  const ANY = { dpopAlgorithms: DPOP_ALGORITHMS };
  const req = (dpop: string[] | undefined) =>
    ({ method: "POST", headersDistinct: dpop === undefined ? {} : { dpop } }) as unknown as IncomingMessage;

  it("is the proof key's thumbprint, undefined without a proof, and invalid_dpop_proof for a proof for another endpoint", async () => {
    const key = await dpopKey();
    expect(await proofThumbprintIfPresent(proofs(), req([await dpopProof(key, { htm: "POST", htu: PAR, iat: nowS() })]), PAR, ANY)).toBe(
      key.jkt,
    );
    expect(await proofThumbprintIfPresent(proofs(), req(undefined), PAR, ANY)).toBeUndefined();
    const err = await refusal(
      proofThumbprintIfPresent(proofs(), req([await dpopProof(key, { htm: "POST", htu: URL_, iat: nowS() })]), PAR, ANY),
    );
    expect({ error: err.error, status: err.status }).toEqual({ error: "invalid_dpop_proof", status: 400 });
  });
});
