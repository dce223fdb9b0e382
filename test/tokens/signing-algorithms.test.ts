/**
 * RS256, PS256 and ES256 side by side: each key signs and verifies its one published algorithm, and
 * the provider's own verifiers (access tokens, with node:crypto; id_token_hint, with jose) refuse a
 * token whose header names any other, even with a signature the key really made under that other
 * algorithm. `none` and HS256 (keyed with what we publish) are refused as ever.
 */
import { constants, createHmac, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNING_ALGS, type SigningAlg } from "../../src/crypto/signing-alg.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";
import type { Client } from "../../src/oauth/client-registry.ts";
import { IdTokenHintVerifier } from "../../src/oauth/id-token-hint.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { AccessTokenVerifier } from "../../src/tokens/access-token-verifier.ts";
import { ACCESS_TOKEN_TYPE } from "../../src/tokens/access-token.ts";
import { ID_TOKEN_TYPE } from "../../src/tokens/id-token.ts";
import { JwsSigner } from "../../src/tokens/jws-signer.ts";
import { KeySet } from "../../src/tokens/key-set.ts";
import { ReferenceTokens } from "../../src/tokens/reference-tokens.ts";

const ISSUER = "https://op.example";
const NOW = 1_800_000_000_000;
const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const privateKeys: Record<SigningAlg, KeyObject> = {
  RS256: rsa(),
  PS256: rsa(),
  ES256: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey,
};
const kidOf = (alg: SigningAlg) => `k-${alg.toLowerCase()}`;
const keys = new KeySet(SIGNING_ALGS.map((alg) => ({ kid: kidOf(alg), status: "current" as const, alg, privateKey: privateKeys[alg] })));
const signer = new JwsSigner(() => keys);
const jwks = createLocalJWKSet(keys.jwks);

const accessClaims = () => ({
  iss: ISSUER,
  sub: "E10001",
  aud: "acme-api",
  iat: NOW / 1000,
  exp: NOW / 1000 + 3600,
  jti: `j-${Math.random()}`,
  client_id: "acme-portal",
  scope: "acme",
});
const idClaims = () => ({ iss: ISSUER, sub: "E10001", aud: "acme-portal", iat: NOW / 1000, exp: NOW / 1000 + 3600 });

/** A compact JWS over `header` and `claims`, its signature made by `signature` (whatever an attacker can produce). */
function forge(header: Record<string, unknown>, claims: object, signature: (input: Buffer) => string): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${input}.${signature(Buffer.from(input))}`;
}

/** A signature `key` really makes under `alg`: what a verifier that trusted the header would accept. */
const realSignature = (alg: SigningAlg, key: KeyObject) => (input: Buffer) => {
  if (alg === "PS256")
    return sign("sha256", input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }).toString("base64url");
  if (alg === "ES256") return sign("sha256", input, { key, dsaEncoding: "ieee-p1363" }).toString("base64url");
  return sign("sha256", input, key).toString("base64url");
};

/** The other algorithms a key's type can sign: the key's own signature, under the wrong name. */
const confusions = SIGNING_ALGS.flatMap((keyAlg) =>
  SIGNING_ALGS.filter((headerAlg) => headerAlg !== keyAlg && (headerAlg === "ES256") === (keyAlg === "ES256")).map((headerAlg) => ({
    keyAlg,
    headerAlg,
  })),
);

/** HMAC keys an attacker can read from what we publish, for an HS256 token naming each of our kids. */
function publishedSecrets(alg: SigningAlg): string[] {
  const pub = createPublicKey(privateKeys[alg]);
  const jwk = keys.jwks.keys.find((k) => k.kid === kidOf(alg))!;
  return [keys.jwksJson, JSON.stringify(jwk), pub.export({ type: "spki", format: "pem" }).toString(), String(jwk.n ?? jwk.x)];
}

let store: Store;
let verifier: AccessTokenVerifier;
const hints = new IdTokenHintVerifier(() => keys, ISSUER);
const clients = { get: (id: string) => (id === "acme-portal" ? ({ id } as Client) : undefined) };

async function accessRejection(token: string): Promise<string> {
  try {
    await verifier.verify(token);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe("invalid_token");
    return (err as OAuthError).description;
  }
  throw new Error("the access token was accepted");
}

async function hintRejection(token: string): Promise<string> {
  try {
    await hints.verify(token, clients);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe("invalid_request");
    return (err as OAuthError).description;
  }
  throw new Error("the id_token_hint was accepted");
}

beforeAll(async () => {
  store = await createStore("embedded", { dataDir: mkdtempSync(join(tmpdir(), "signing-algs-")), logger: pino({ level: "silent" }) });
  verifier = new AccessTokenVerifier(
    () => keys,
    ISSUER,
    () => NOW,
    new AccessTokenDenylist(store, () => NOW),
    new ReferenceTokens(store, () => NOW),
  );
});
afterAll(() => store.close());

describe.each(SIGNING_ALGS)("%s", (alg) => {
  it("signs with the algorithm's own current key, which the JWKS publishes with that alg", async () => {
    const token = signer.sign(accessClaims(), ACCESS_TOKEN_TYPE, alg);
    expect(decodeProtectedHeader(token)).toEqual({ alg, kid: kidOf(alg), typ: ACCESS_TOKEN_TYPE });
    expect(keys.jwks.keys.find((k) => k.kid === kidOf(alg))?.alg).toBe(alg);
    // A relying party's library checks it against the JWKS, accepting only this alg.
    await expect(jwtVerify(token, jwks, { algorithms: [alg], issuer: ISSUER })).resolves.toMatchObject({ payload: { sub: "E10001" } });
  });

  it("is what the provider's own verifiers accept: an access token at the bearer verifier, an ID token as id_token_hint", async () => {
    await expect(verifier.verify(signer.sign(accessClaims(), ACCESS_TOKEN_TYPE, alg))).resolves.toMatchObject({ sub: "E10001" });
    await expect(hints.verify(signer.sign(idClaims(), ID_TOKEN_TYPE, alg), clients)).resolves.toMatchObject({ sub: "E10001" });
  });

  it("refuses alg none and HS256 keyed with anything we publish, naming this algorithm's kid", async () => {
    for (const [claims, typ, rejection] of [
      [accessClaims(), ACCESS_TOKEN_TYPE, accessRejection],
      [idClaims(), ID_TOKEN_TYPE, hintRejection],
    ] as const) {
      const none = forge({ alg: "none", kid: kidOf(alg), typ }, claims, () => "");
      expect(await rejection(none)).toMatch(/the token algorithm is not accepted/);
      for (const secret of publishedSecrets(alg)) {
        const hs = forge({ alg: "HS256", kid: kidOf(alg), typ }, claims, (input) =>
          createHmac("sha256", secret).update(input).digest("base64url"),
        );
        expect(await rejection(hs)).toMatch(/the token algorithm is not accepted/);
      }
    }
  });
});

describe("algorithm confusion between our own keys", () => {
  it.each(confusions)(
    "refuses a $headerAlg header on the $keyAlg key's kid, though the key really made that signature",
    async ({ keyAlg, headerAlg }) => {
      const access = forge(
        { alg: headerAlg, kid: kidOf(keyAlg), typ: ACCESS_TOKEN_TYPE },
        accessClaims(),
        realSignature(headerAlg, privateKeys[keyAlg]),
      );
      expect(await accessRejection(access)).toBe("the token algorithm is not accepted");
      const id = forge(
        { alg: headerAlg, kid: kidOf(keyAlg), typ: ID_TOKEN_TYPE },
        idClaims(),
        realSignature(headerAlg, privateKeys[keyAlg]),
      );
      expect(await hintRejection(id)).toBe("id_token_hint is not valid: the token algorithm is not accepted");
      // The same signature under the key's own name would have been fine: the refusal is the name, not the bytes.
      const honest = forge(
        { alg: keyAlg, kid: kidOf(keyAlg), typ: ACCESS_TOKEN_TYPE },
        accessClaims(),
        realSignature(keyAlg, privateKeys[keyAlg]),
      );
      await expect(verifier.verify(honest)).resolves.toMatchObject({ sub: "E10001" });
    },
  );

  it("covers every RSA pairing both ways", () => {
    expect(confusions).toEqual([
      { keyAlg: "RS256", headerAlg: "PS256" },
      { keyAlg: "PS256", headerAlg: "RS256" },
    ]);
  });

  it("refuses an RSA signature on the ES256 kid and an ECDSA one on an RSA kid, whatever the header says", async () => {
    for (const [headerAlg, kidAlg, signer] of [
      ["RS256", "ES256", "RS256"],
      ["ES256", "RS256", "ES256"],
      ["ES256", "ES256", "RS256"],
    ] as const) {
      const token = forge(
        { alg: headerAlg, kid: kidOf(kidAlg), typ: ACCESS_TOKEN_TYPE },
        accessClaims(),
        realSignature(signer, privateKeys[signer]),
      );
      expect(await accessRejection(token)).toMatch(/the token algorithm is not accepted|the token signature is invalid/);
    }
  });

  it("refuses an ES256 signature in DER rather than the raw r‖s a JWS carries", async () => {
    const der = forge({ alg: "ES256", kid: kidOf("ES256"), typ: ACCESS_TOKEN_TYPE }, accessClaims(), (input) =>
      sign("sha256", input, privateKeys.ES256).toString("base64url"),
    );
    expect(await accessRejection(der)).toBe("the token signature is invalid");
  });
});

describe("key set", () => {
  it("refuses a key that cannot sign the algorithm it is given, and two current keys of one algorithm", () => {
    expect(() => new KeySet([{ kid: "x", status: "current", alg: "ES256", privateKey: privateKeys.RS256 }])).toThrow(/not ES256/);
    expect(() => new KeySet([{ kid: "x", status: "current", alg: "PS256", privateKey: privateKeys.ES256 }])).toThrow(/not PS256/);
    expect(
      () =>
        new KeySet([
          { kid: "a", status: "current", alg: "ES256", privateKey: privateKeys.ES256 },
          { kid: "b", status: "current", alg: "ES256", privateKey: privateKeys.ES256 },
        ]),
    ).toThrow(/exactly one current key per algorithm/);
  });

  it("lists its algorithms in RS256, PS256, ES256 order, whatever order its keys come in", () => {
    const reversed = new KeySet(
      [...SIGNING_ALGS].reverse().map((alg) => ({ kid: kidOf(alg), status: "current" as const, alg, privateKey: privateKeys[alg] })),
    );
    expect(reversed.algorithms).toEqual(["RS256", "PS256", "ES256"]);
    expect(reversed.signing.kid).toBe(kidOf("RS256"));
  });
});
