/**
 * The resource-owner password grant at POST /connect/token: tokens for the right password, one
 * indistinguishable answer for every failure, and attempt limits that cannot be raced.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/crypto/password-hash.ts";
import { postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, expectOAuthError, LEGACY, requestPassword, SERVICE, sleep, TOKEN, verifyWithJwks } from "./helpers.ts";

const MAX_FAILURES = 3;
// Extra users, one per test that changes a failure counter, so that no test depends on another.
const PASSWORD = "correct-horse-battery";
const EXTRA_USERS = ["carol", "dave", "erin", "frank"];

let p: TestProvider;

beforeAll(async () => {
  const hash = await hashPassword(PASSWORD);
  p = await startTestProvider({
    edits: {
      "provider.yaml": { "security.password_attempts.max_failures": MAX_FAILURES },
      "users.yaml": appendTo("users", [
        ...EXTRA_USERS.map((username, i) => ({ username, sub: `E2000${i}`, password_hash: hash, claims: {} })),
        { username: "gina", sub: "E20009", password_hash: hash, disabled: true, claims: {} },
      ]),
    },
  });
});
afterAll(() => p?.close());

describe("successful login", () => {
  it("gives a token with identity scopes only the userinfo endpoint as its audience, never an empty one", async () => {
    const res = await requestPassword(p, "alice", "alice-password", { scope: "profile" });
    expect(res.status, res.text).toBe(200);
    const { payload } = await verifyWithJwks(p, res.json!.access_token as string);
    expect(payload.aud).toBe(`${p.issuer}/connect/userinfo`);
  });

  it("issues an access token for alice with sub E10001 and amr [password]", async () => {
    const res = await requestPassword(p, "alice", "alice-password");
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid profile acme" });
    const { payload } = await verifyWithJwks(p, res.json!.access_token as string);
    expect(payload).toMatchObject({ sub: "E10001", amr: ["password"], client_id: "demo-legacy" });
  });

  it("issues no refresh token to a client without offline access", async () => {
    const res = await requestPassword(p, "alice", "alice-password", { scope: "openid acme" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).not.toHaveProperty("refresh_token");
  });
});

describe("failures", () => {
  it("answers a wrong password with 400 invalid_grant", async () => {
    expectOAuthError(await requestPassword(p, "bob", "not-bobs-password"), 400, "invalid_grant");
  });

  it("answers an unknown user exactly as a wrong password", async () => {
    const wrong = await requestPassword(p, "bob", "not-bobs-password");
    const unknown = await requestPassword(p, "nobody-here", "not-bobs-password");
    expect({ status: unknown.status, body: unknown.text }).toEqual({ status: wrong.status, body: wrong.text });
  });

  it("answers a disabled user with the right password exactly as a wrong password", async () => {
    const disabled = await requestPassword(p, "gina", PASSWORD);
    const wrong = await requestPassword(p, "bob", "not-bobs-password");
    expect({ status: disabled.status, body: disabled.text }).toEqual({ status: wrong.status, body: wrong.text });
  });

  it("accepts the user name in any case", async () => {
    expect((await requestPassword(p, "ALICE", "alice-password")).status).toBe(200);
  });

  it.each([
    ["username", { password: "alice-password" }],
    ["password", { username: "alice" }],
  ])("answers a missing %s with 400 invalid_request", async (_name, fields) => {
    const res = await postForm(p.url + TOKEN, { grant_type: "password", client_id: LEGACY.id, client_secret: LEGACY.secret, ...fields });
    expectOAuthError(res, 400, "invalid_request");
  });

  it.each(["acme.api.msg", "email", "offline_access", "openid no-such-scope"])(
    "answers scope %j outside the client's with invalid_scope",
    async (scope) => {
      expectOAuthError(await requestPassword(p, "alice", "alice-password", { scope }), 400, "invalid_scope");
    },
  );

  it("answers a client without the password grant with unauthorized_client", async () => {
    expectOAuthError(await requestPassword(p, "alice", "alice-password", {}, SERVICE), 400, "unauthorized_client");
  });
});

describe("attempt limit", () => {
  it(`gives the right password the byte-identical wrong-password answer after ${MAX_FAILURES} failures`, async () => {
    const failures = [];
    for (let i = 0; i < MAX_FAILURES; i++) failures.push(await requestPassword(p, "carol", `wrong-${i}`));
    const right = await requestPassword(p, "carol", PASSWORD);
    const wrong = await requestPassword(p, "carol", "wrong-again");
    expect({ status: right.status, body: right.text }).toEqual({ status: wrong.status, body: wrong.text });
    expect({ status: right.status, body: right.text }).toEqual({ status: failures[0]!.status, body: failures[0]!.text });
    expect(right.headers.get("content-type")).toBe(wrong.headers.get("content-type"));
  });

  it("does not lock a different user", async () => {
    for (let i = 0; i < MAX_FAILURES; i++) await requestPassword(p, "erin", `wrong-${i}`);
    expect((await requestPassword(p, "erin", PASSWORD)).status).toBe(400);
    const other = await requestPassword(p, "alice", "alice-password");
    expect(other.status, other.text).toBe(200);
  });

  it("counts every one of 20 concurrent wrong attempts", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => requestPassword(p, "dave", `wrong-${i}`)));
    for (const res of results) expectOAuthError(res, 400, "invalid_grant");
    expect((await requestPassword(p, "dave", PASSWORD)).status).toBe(400);
    // The counter went up by exactly one per attempt: 20 concurrent + 1 refused right-password attempt.
    expect(await p.provider.passwordAttempts.count("dave")).toBe(21);
  });

  it("refuses a guess that arrives while earlier guesses that reach the limit are still being checked", async () => {
    // Reach the limit with concurrent wrong guesses, then send the right one while those are still hashing.
    const wrong = Array.from({ length: MAX_FAILURES }, (_, i) => requestPassword(p, "frank", `wrong-${i}`));
    await sleep(50);
    const right = await requestPassword(p, "frank", PASSWORD);
    await Promise.all(wrong);
    expectOAuthError(right, 400, "invalid_grant");
  });
});
