import { generateKeyPairSync, createHmac, sign } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { SignJWT, UnsecuredJWT } from "jose";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { KeySet } from "../../src/tokens/key-set.ts";
import { JwsSigner } from "../../src/tokens/jws-signer.ts";
import { AccessTokenVerifier } from "../../src/tokens/access-token-verifier.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { ReferenceTokens } from "../../src/tokens/reference-tokens.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";

const ISSUER = "https://op.example";
const NOW = 1_800_000_000_000;
const ourKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const foreignKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
const keys = new KeySet([{ kid: "k1", status: "current", privateKey: ourKey.privateKey }]);
const signer = new JwsSigner(() => keys);
let store: Store;
let verifier: AccessTokenVerifier;
let denylist: AccessTokenDenylist;

const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  sub: "E10001",
  aud: "acme-api",
  iat: NOW / 1000,
  exp: NOW / 1000 + 3600,
  jti: `j-${Math.random()}`,
  client_id: "c",
  scope: "acme",
  ...extra,
});

async function rejection(token: string): Promise<string> {
  try {
    await verifier.verify(token);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe("invalid_token");
    expect((err as OAuthError).status).toBe(401);
    return (err as OAuthError).description;
  }
  throw new Error("token was accepted");
}

beforeAll(async () => {
  store = await createStore("embedded", { dataDir: mkdtempSync(join(tmpdir(), "verifier-")), logger: pino({ level: "silent" }) });
  denylist = new AccessTokenDenylist(store, () => NOW);
  verifier = new AccessTokenVerifier(
    () => keys,
    ISSUER,
    () => NOW,
    denylist,
    new ReferenceTokens(store, () => NOW),
  );
});
afterAll(() => store.close());

describe("access token verification (signature rules)", () => {
  it("accepts a token we signed, within its lifetime", async () => {
    const token = signer.sign(claims(), "at+jwt");
    expect((await verifier.verify(token)).sub).toBe("E10001");
  });

  it("rejects an expired token and one not yet valid", async () => {
    expect(await rejection(signer.sign(claims({ exp: NOW / 1000 - 60 }), "at+jwt"))).toMatch(/expired/);
    expect(await rejection(signer.sign(claims({ nbf: NOW / 1000 + 600 }), "at+jwt"))).toMatch(/claim/);
  });

  it("rejects alg none, HS256 keyed with our public key, and a foreign RSA key claiming our kid", async () => {
    await rejection(new UnsecuredJWT(claims()).encode());
    const header = Buffer.from(JSON.stringify({ alg: "HS256", kid: "k1", typ: "at+jwt" })).toString("base64url");
    const body = Buffer.from(JSON.stringify(claims())).toString("base64url");
    const pem = ourKey.publicKey.export({ format: "pem", type: "spki" });
    const hs = createHmac("sha256", pem).update(`${header}.${body}`).digest("base64url");
    await rejection(`${header}.${body}.${hs}`);
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: "RS256", kid: "k1", typ: "at+jwt" }).sign(foreignKey.privateKey);
    expect(await rejection(forged)).toMatch(/signature/);
  });

  it("rejects an unknown kid, a wrong typ (an ID token), and another issuer", async () => {
    const unknownKid = await new SignJWT(claims()).setProtectedHeader({ alg: "RS256", kid: "k9", typ: "at+jwt" }).sign(ourKey.privateKey);
    await rejection(unknownKid);
    await rejection(signer.sign(claims(), "JWT"));
    await rejection(signer.sign(claims({ iss: "https://evil.example" }), "at+jwt"));
  });

  it("rejects a token missing a required RFC 9068 claim", async () => {
    for (const missing of ["jti", "client_id", "scope", "sub", "exp"]) {
      const c: Record<string, unknown> = claims();
      delete c[missing];
      await rejection(signer.sign(c, "at+jwt"));
    }
  });

  it("compares typ as jose does: case-insensitive, with or without application/", async () => {
    for (const typ of ["application/at+jwt", "AT+JWT", "Application/At+Jwt"]) {
      expect((await verifier.verify(signer.sign(claims(), typ))).sub).toBe("E10001");
    }
    for (const typ of ["at+jwt ", "application/jwt", "jwt", "+jwt"]) await rejection(signer.sign(claims(), typ));
  });

  it("reads a token only in canonical base64url: padding, whitespace and unused bits are malformed (jose let them through on the signature)", async () => {
    const token = signer.sign(claims(), "at+jwt");
    // A 256-byte signature leaves 4 unused bits in its last character: its alphabet neighbour decodes the same.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const lastBitsFlipped = token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]!;
    for (const variant of [`${token}==`, `${token} `, `${token}\n`, token.replace(".", ". "), lastBitsFlipped]) {
      expect(await rejection(variant)).toBe("the token is malformed");
    }
  });

  it("refuses critical header extensions but b64, and a b64 false (unencoded) payload, as jose did", async () => {
    const signed = (header: object) => {
      const input = `${Buffer.from(JSON.stringify({ alg: "RS256", kid: "k1", typ: "at+jwt", ...header })).toString("base64url")}.${Buffer.from(JSON.stringify(claims())).toString("base64url")}`;
      return `${input}.${sign("sha256", Buffer.from(input), ourKey.privateKey).toString("base64url")}`;
    };
    expect((await verifier.verify(signed({ crit: ["b64"], b64: true }))).sub).toBe("E10001");
    expect(await rejection(signed({ crit: ["exp"], exp: 1 }))).toMatch(/unsupported/);
    expect(await rejection(signed({ crit: ["b64"], b64: false }))).toBe("the token is malformed");
    expect(await rejection(signed({ crit: [] }))).toBe("the token is malformed");
  });

  it("rejects a revoked token", async () => {
    const c = claims();
    const token = signer.sign(c, "at+jwt");
    await denylist.revoke(c.jti, c.exp);
    expect(await rejection(token)).toMatch(/revoked/);
  });

  it("rejects every token signed by any key but ours, whatever its claims", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("k1", "k2", ""), async (sub, kid) => {
        const token = await new SignJWT(claims({ sub }))
          .setProtectedHeader({ alg: "RS256", kid, typ: "at+jwt" })
          .sign(foreignKey.privateKey);
        await rejection(token);
      }),
      { numRuns: 25 },
    );
  });

  it("never throws anything but invalid_token for arbitrary input", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `${s}.${s}.${s}`),
        ),
        async (garbage) => {
          await rejection(garbage);
        },
      ),
      { numRuns: 100 },
    );
  });
});
