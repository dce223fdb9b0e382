/**
 * UserInfo (SPEC "UserInfo", OIDC Core §5.3, RFC 6750): where the token may come from, every refusal
 * with its exact status and challenge, and which claims each identity scope releases.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { clientCredentialsToken, LEGACY, requestPassword, send, SERVICE, type FormResponse } from "./helpers.ts";

const USERINFO = "/connect/userinfo";
const PROFILE_CLAIMS = [
  "name",
  "emp_no",
  "area",
  "bg",
  "bu",
  "company",
  "cost_code",
  "birthdate",
  "class",
  "job_title",
  "hiredate",
  "picture",
  "role",
  "given_name",
  "family_name",
  "preferred_username",
  "updated_at",
];

let p: TestProvider;
let url: string;

beforeAll(async () => {
  p = await startTestProvider();
  url = p.url + USERINFO;
});
afterAll(() => p?.close());

/** An access token minted in-process (the code flow's tokens look the same). */
function accessToken(scopes: string[], overrides: { sub?: string; lifetime?: number; clientId?: string } = {}) {
  return p.provider.accessTokens.issue({
    sub: overrides.sub ?? "E10001",
    clientId: overrides.clientId ?? "demo-web",
    scopes,
    resources: p.provider.policies.current().scopes,
    lifetime: overrides.lifetime ?? 3600,
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (headers: Record<string, string> = {}, path = "") => send(url + path, { headers });

function expectChallenge(res: FormResponse, status: number, error: string, extra = "") {
  expect({ status: res.status, error: res.json?.error }, res.text).toEqual({ status, error });
  expect(res.headers.get("www-authenticate")).toMatch(
    new RegExp(`^Bearer realm="portcullis", error="${error}", error_description="[^"]+"${extra}$`),
  );
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
}

const expectInvalidToken = (res: FormResponse) => expectChallenge(res, 401, "invalid_token");

/** 401 with only `Bearer realm="portcullis"`: no error code anywhere (RFC 6750 §3.1). */
function expectBareChallenge(res: FormResponse) {
  expect(res.status, res.text).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe('Bearer realm="portcullis"');
  expect(res.text).toBe("");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
}

describe("no token", () => {
  it("answers 401 with a bare challenge and no error code", async () => {
    expectBareChallenge(await get());
  });

  it("treats another scheme (Basic) as no token", async () => {
    expectBareChallenge(await get({ authorization: `Basic ${Buffer.from("demo-web:x").toString("base64")}` }));
  });

  it("treats an empty Bearer header as no token", async () => {
    expectBareChallenge(await get({ authorization: "Bearer " }));
  });

  it("does not take a token from the query string", async () => {
    const { token } = accessToken(["openid"]);
    expectBareChallenge(await get({}, `?access_token=${token}`));
  });

  it("does not read a token from a POST body that is not a form", async () => {
    const { token } = accessToken(["openid"]);
    expectBareChallenge(
      await send(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ access_token: token }) }),
    );
  });
});

describe("refused tokens", () => {
  it.each(["garbage", "a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJFMTAwMDEifQ."])("answers %j with 401 invalid_token", async (token) => {
    expectInvalidToken(await get(bearer(token)));
  });

  it("refuses an expired token", async () => {
    const res = await get(bearer(accessToken(["openid", "profile"], { lifetime: -10 }).token));
    expectInvalidToken(res);
    expect(res.headers.get("www-authenticate")).toContain('error_description="the token has expired"');
  });

  it("refuses a revoked token", async () => {
    const { token, claims } = accessToken(["openid", "profile"]);
    expect((await get(bearer(token))).status).toBe(200);
    await p.provider.accessTokenDenylist.revoke(claims.jti, claims.exp);
    const res = await get(bearer(token));
    expectInvalidToken(res);
    expect(res.headers.get("www-authenticate")).toContain("revoked");
  });

  it("refuses an ID token (typ JWT, not at+jwt) even with a userinfo audience and openid", async () => {
    const now = Math.floor(Date.now() / 1000);
    const idToken = p.provider.signer.sign(
      {
        iss: p.issuer,
        sub: "E10001",
        aud: `${p.issuer}${USERINFO}`,
        exp: now + 600,
        iat: now,
        jti: "x",
        client_id: "demo-web",
        scope: "openid profile",
      },
      "JWT",
    );
    expectInvalidToken(await get(bearer(idToken)));
  });

  it("refuses a client_credentials token (no userinfo audience)", async () => {
    const res = await get(bearer(await clientCredentialsToken(p, SERVICE, "acme")));
    expectInvalidToken(res);
    expect(res.headers.get("www-authenticate")).toContain("not meant for the userinfo endpoint");
  });

  it("refuses a token signed by a key that is not ours", async () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const { token } = accessToken(["openid"]);
    const [header, payload] = token.split(".");
    const forged = `${header}.${payload}.${sign("sha256", Buffer.from(`${header}.${payload}`), privateKey).toString("base64url")}`;
    expectInvalidToken(await get(bearer(forged)));
  });

  it("refuses the token of a user who no longer exists", async () => {
    expectInvalidToken(await get(bearer(accessToken(["openid", "profile"], { sub: "E99999" }).token)));
  });

  it("answers a valid user token without openid with 403 insufficient_scope naming openid", async () => {
    // profile alone: the token is for userinfo (its only audience) but lacks openid.
    expectChallenge(await get(bearer(accessToken(["profile"]).token)), 403, "insufficient_scope", ', scope="openid"');
  });
});

describe("where the token comes from", () => {
  it("accepts GET with the header, with the Content-Type the SPEC shows", async () => {
    const res = await get({ ...bearer(accessToken(["openid"]).token), "content-type": "application/json" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ sub: "E10001" });
  });

  it("accepts POST with the header", async () => {
    const res = await send(url, { method: "POST", headers: bearer(accessToken(["openid"]).token) });
    expect(res.status, res.text).toBe(200);
  });

  it("accepts POST with an access_token form field", async () => {
    const res = await postForm(url, { access_token: accessToken(["openid", "email"]).token });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ sub: "E10001", email: "alice@example.com", email_verified: true });
  });

  it("refuses a token in the header and in the body at once with 400 invalid_request", async () => {
    const { token } = accessToken(["openid"]);
    expectChallenge(await postForm(url, { access_token: token }, bearer(token)), 400, "invalid_request");
  });

  it("refuses a repeated access_token form field with 400 invalid_request", async () => {
    const { token } = accessToken(["openid"]);
    expectChallenge(await postForm(url, `access_token=${token}&access_token=${token}`), 400, "invalid_request");
  });

  it("answers other methods with 405", async () => {
    const res = await send(url, { method: "PUT", headers: bearer(accessToken(["openid"]).token) });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST, OPTIONS");
  });
});

describe("claims by scope (config/scopes.yaml)", () => {
  const claimsFor = async (scopes: string[]) => {
    const res = await get(bearer(accessToken(scopes).token));
    expect(res.status, res.text).toBe(200);
    return res.json!;
  };

  it("releases only sub for openid alone", async () => {
    expect(await claimsFor(["openid"])).toEqual({ sub: "E10001" });
  });

  it("releases the profile claims, and not email, for openid profile", async () => {
    const claims = await claimsFor(["openid", "profile"]);
    expect(Object.keys(claims).sort()).toEqual(["sub", ...PROFILE_CLAIMS].sort());
    expect(claims).toMatchObject({
      sub: "E10001",
      emp_no: "E10001",
      name: "Alice Chen",
      birthdate: "1990/04/12",
      hiredate: "2015-08-03",
      role: ["employee", "engineer"],
      given_name: "Alice",
      family_name: "Chen",
      preferred_username: "alice",
      updated_at: 1767225600,
    });
  });

  it("releases email, and no profile claim, for openid email", async () => {
    expect(await claimsFor(["openid", "email"])).toEqual({ sub: "E10001", email: "alice@example.com", email_verified: true });
  });

  it("releases both sets for openid profile email, and nothing for API scopes", async () => {
    const claims = await claimsFor(["openid", "profile", "email", "acme"]);
    expect(Object.keys(claims).sort()).toEqual(["sub", "email", "email_verified", ...PROFILE_CLAIMS].sort());
  });

  it("serves a token from the token endpoint (audience list with an API)", async () => {
    const res = await requestPassword(p, "bob", "bob-password", { scope: "openid profile acme" }, LEGACY);
    expect(res.status, res.text).toBe(200);
    const info = await get(bearer(res.json!.access_token as string));
    expect(info.status, info.text).toBe(200);
    expect(info.json).toMatchObject({ sub: "E10002", name: "Bob Tran" });
    expect(info.json).not.toHaveProperty("email");
  });

  it("answers JSON that no cache may keep and any origin may read", async () => {
    const res = await get(bearer(accessToken(["openid"]).token));
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("CORS preflight", () => {
  it("allows any origin to send Authorization with GET and POST", async () => {
    const res = await send(url, {
      method: "OPTIONS",
      headers: { origin: "https://spa.example", "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/\bAuthorization\b/);
  });
});
