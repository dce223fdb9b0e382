/** ID tokens (OIDC Core §2, §3.1.3.6): RS256, typ JWT, the required claims, nonce and at_hash. */
import { generateKeyPairSync } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { KeySet } from "../../src/tokens/key-set.ts";
import { JwsSigner } from "../../src/tokens/jws-signer.ts";
import { atHash, IdTokenIssuer } from "../../src/tokens/id-token.ts";

const keySet = new KeySet([{ kid: "k1", status: "current", privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey }]);
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const ISSUER = "https://id.example";
const issuer = new IdTokenIssuer(new JwsSigner(() => keySet), ISSUER, () => NOW);
const verify = (token: string) =>
  jwtVerify(token, createLocalJWKSet(keySet.jwks), {
    algorithms: ["RS256"],
    issuer: ISSUER,
    audience: "demo-web",
    currentDate: new Date(NOW),
    typ: "JWT",
  });

const base = {
  sub: "E10001",
  clientId: "demo-web",
  authTime: NOW / 1000 - 30,
  amr: ["password", "totp", "mfa"],
  acr: "2fa",
  lifetime: 3600,
};

describe("ID token", () => {
  it("computes at_hash as in the OIDC Core example (Appendix A.4)", () => {
    expect(atHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y")).toBe("77QmUPtjPfzWtF2AnpK9RQ");
  });

  it("is an RS256 JWT with typ JWT and our kid, verifiable with jose", async () => {
    const token = issuer.issue(base);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: "k1", typ: "JWT" });
    await expect(verify(token)).resolves.toBeDefined();
  });

  it("carries iss, sub, aud, exp, iat, auth_time, amr, acr, sid, nonce and at_hash", async () => {
    const { payload } = await verify(issuer.issue({ ...base, nonce: "n-0S6_WzA2Mj", sid: "sid-1", accessToken: "access.token.value" }));
    expect(payload).toEqual({
      iss: ISSUER,
      sub: "E10001",
      aud: "demo-web",
      iat: NOW / 1000,
      exp: NOW / 1000 + 3600,
      auth_time: NOW / 1000 - 30,
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
      sid: "sid-1",
      nonce: "n-0S6_WzA2Mj",
      at_hash: atHash("access.token.value"),
    });
  });

  it("leaves out nonce, sid and at_hash when there are none", async () => {
    const { payload } = await verify(issuer.issue(base));
    expect(Object.keys(payload).sort()).toEqual(["acr", "amr", "aud", "auth_time", "exp", "iat", "iss", "sub"]);
  });

  it("adds extra claims, but none of them can set or replace a protocol claim", async () => {
    const claims = {
      chnl: "wechat",
      gps: { lat: 1.5, lnt: 2.5, time: 1 },
      sub: "intruder",
      iss: "https://evil.example",
      aud: "other",
      nonce: "forged",
    };
    const { payload } = await verify(issuer.issue({ ...base, claims }));
    expect(payload).toMatchObject({ chnl: "wechat", gps: { lat: 1.5, lnt: 2.5, time: 1 }, sub: "E10001", iss: ISSUER, aud: "demo-web" });
    expect(payload).not.toHaveProperty("nonce");
  });
});
