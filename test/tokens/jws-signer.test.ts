import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { jwtVerify, decodeProtectedHeader, createLocalJWKSet } from "jose";
import { describe, expect, it } from "vitest";
import { KeySet } from "../../src/tokens/key-set.ts";
import { JwsSigner } from "../../src/tokens/jws-signer.ts";

const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const keySet = new KeySet([
  { kid: "current-key", status: "current", privateKey: rsa() },
  { kid: "next-key", status: "next", privateKey: rsa() },
]);
const signer = new JwsSigner(() => keySet);
const jwks = createLocalJWKSet(keySet.jwks);

describe("JWS signer (signature rules)", () => {
  it("signs with the current key only, RS256, with kid and typ in the header", () => {
    const token = signer.sign({ sub: "x" }, "at+jwt");
    expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: "current-key", typ: "at+jwt" });
  });

  it("produces tokens jose verifies against the published JWKS, for any payload", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 })), async (claims) => {
        const token = signer.sign(claims, "JWT");
        const { payload } = await jwtVerify(token, jwks, { algorithms: ["RS256"] });
        expect(payload).toEqual(JSON.parse(JSON.stringify(claims)));
      }),
      { numRuns: 40 },
    );
  });

  it("any change to header, payload or signature breaks verification", async () => {
    const token = signer.sign({ sub: "alice", scope: "openid" }, "JWT");
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        async (at, ch) => {
          // The last character of a base64url segment carries padding bits a decoder may ignore: skip it.
          fc.pre(token[at] !== "." && token[at] !== ch && token[at + 1] !== "." && at !== token.length - 1);
          const tampered = token.slice(0, at) + ch + token.slice(at + 1);
          await expect(jwtVerify(tampered, jwks, { algorithms: ["RS256"] })).rejects.toThrow();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("publishes only public parts of every key", () => {
    for (const k of keySet.jwks.keys) {
      expect(Object.keys(k).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
      expect(k).toMatchObject({ kty: "RSA", use: "sig", alg: "RS256" });
    }
    expect(keySet.jwksJson).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
  });
});
