/**
 * The eID broker against a real upstream: a second Portcullis in its own process (the demo's development
 * upstream, citizens mei and ravi), driven like a browser over HTTP. begin → the upstream's password
 * login → finish; the refusals (down, bad state, access_denied, a code used twice); userinfo for the account.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EidError } from "../../src/eid/eid-error.ts";
import type { EidPending } from "../../src/eid/eid-upstream.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { mintCode, redeemCode } from "../support/code-grant.ts";
import { startEidUpstreamProcess, testEidUpstreamEdits, type EidUpstreamProcess } from "../support/eid-upstream.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { freePort } from "../support/services.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/** Two provider start-ups and scrypt logins on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
const TEST_MS = 60_000;

/** What finish gives for mei's password login upstream: her account, and acr 1fa (what the upstream performed, mapped back). */
const MEI = { sub: "cz:CZ-4201-7781", claims: { name: "Mei Lin", birthdate: "1992/03/08", email: "mei.lin@example.org" }, acr: "1fa" };

let broker: TestProvider;
let upstream: EidUpstreamProcess;
let callback: string;
/** What begin gave while nothing listened at the upstream's issuer yet. */
let whileDown: unknown;

beforeAll(async () => {
  const port = await freePort();
  broker = await startTestProvider({
    edits: { "login.yaml": testEidUpstreamEdits(`http://127.0.0.1:${port}`) },
  });
  callback = `${broker.issuer}/eID/callback`;
  whileDown = await broker.provider.eid.begin("test-eid", callback).catch((error: unknown) => error);
  upstream = await startEidUpstreamProcess(port, callback);
}, SETUP_MS);

afterAll(async () => {
  await upstream?.stop();
  await broker?.close();
});

/** A login of `username` at the upstream in a new browser: the callback URL the upstream sends it back to. */
async function upstreamLogin(username = "mei"): Promise<{ pending: EidPending; callbackUrl: string }> {
  const { url, pending } = await broker.provider.eid.begin("test-eid", callback);
  const answer = await loginWithPassword(new RawBrowser(), url.href, username, `${username}-password`);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  expect(answer.location!.startsWith(`${callback}?`)).toBe(true);
  return { pending, callbackUrl: answer.location! };
}

function expectEidError(error: unknown, failure: string, oauthError: string, status: number) {
  expect(error).toBeInstanceOf(EidError);
  expect({
    failure: (error as EidError).failure,
    error: (error as EidError).error,
    status: (error as EidError).status,
    upstream: (error as EidError).upstream,
  }).toEqual({
    failure,
    error: oauthError,
    status,
    upstream: "test-eid",
  });
}

describe("an upstream that is down", () => {
  it(
    "is temporarily_unavailable at begin (not a crash at start), and the next login discovers it once it is up",
    async () => {
      expectEidError(whileDown, "unavailable", "temporarily_unavailable", 503);
      expect((whileDown as EidError).description).toBe("the eID provider is not reachable, try again later");
      const { url } = await broker.provider.eid.begin("test-eid", callback);
      expect(url.origin).toBe(upstream.issuer);
    },
    TEST_MS,
  );
});

describe("begin", () => {
  it(
    "sends the browser to the upstream's authorization endpoint with the code flow, PKCE S256, state and nonce",
    async () => {
      const { url, pending } = await broker.provider.eid.begin("test-eid", callback);
      expect(`${url.origin}${url.pathname}`).toBe(`${upstream.issuer}/connect/authorize`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: "portcullis-eid-broker",
        response_type: "code",
        redirect_uri: callback,
        scope: "openid profile email",
        code_challenge: createHash("sha256").update(pending.codeVerifier).digest("base64url"),
        code_challenge_method: "S256",
        state: pending.state,
        nonce: pending.nonce,
      });
      expect(pending).toEqual({
        upstream: "test-eid",
        redirectUri: callback,
        state: expect.any(String),
        nonce: expect.any(String),
        codeVerifier: expect.any(String),
      });
      // Fresh per login: nothing a second login could replay.
      const again = await broker.provider.eid.begin("test-eid", callback);
      expect(again.pending.state).not.toBe(pending.state);
      expect(again.pending.nonce).not.toBe(pending.nonce);
      expect(again.pending.codeVerifier).not.toBe(pending.codeVerifier);
    },
    TEST_MS,
  );
});

describe("begin with the client's own request options", () => {
  it(
    "passes prompt=login, max_age and ui_locales upstream, and finish checks the ID token's auth_time against max_age",
    async () => {
      const { url, pending } = await broker.provider.eid.begin("test-eid", callback, { prompt: "login", maxAge: 600, uiLocales: "en" });
      expect([url.searchParams.get("prompt"), url.searchParams.get("max_age"), url.searchParams.get("ui_locales")]).toEqual([
        "login",
        "600",
        "en",
      ]);
      expect(pending.maxAge).toBe(600);
      const answer = await loginWithPassword(new RawBrowser(), url.href, "mei", "mei-password");
      expect(await broker.provider.eid.finish(answer.location!, pending)).toEqual(MEI);
    },
    TEST_MS,
  );
});

describe("finish", () => {
  it(
    "after the upstream's password login, gives the prefixed sub and the mapped claims, and records the account",
    async () => {
      const { pending, callbackUrl } = await upstreamLogin("mei");
      expect(await broker.provider.eid.finish(callbackUrl, pending)).toEqual(MEI);
      expect(await broker.provider.eid.accounts.claims(MEI.sub)).toEqual(MEI.claims);
    },
    TEST_MS,
  );

  it(
    "refuses a callback whose state is not the login's, as invalid_request",
    async () => {
      const { pending, callbackUrl } = await upstreamLogin("ravi");
      const forged = new URL(callbackUrl);
      forged.searchParams.set("state", "someone-elses-state");
      const error = await broker.provider.eid.finish(forged.href, pending).catch((e: unknown) => e);
      expectEidError(error, "invalid_callback", "invalid_request", 400);
      // Nor does a callback without any state pass.
      forged.searchParams.delete("state");
      expectEidError(
        await broker.provider.eid.finish(forged.href, pending).catch((e: unknown) => e),
        "invalid_callback",
        "invalid_request",
        400,
      );
    },
    TEST_MS,
  );

  it(
    "turns the upstream's error=access_denied into access_denied, without repeating the upstream's text",
    async () => {
      const { pending } = await broker.provider.eid.begin("test-eid", callback);
      const denied = new URL(callback);
      for (const [name, value] of Object.entries({
        error: "access_denied",
        error_description: "the citizen pressed cancel",
        state: pending.state,
        iss: upstream.issuer,
      }))
        denied.searchParams.set(name, value);
      const error = await broker.provider.eid.finish(denied.href, pending).catch((e: unknown) => e);
      expectEidError(error, "access_denied", "access_denied", 403);
      expect((error as EidError).description).toBe("the eID login was not completed (access_denied)");
    },
    TEST_MS,
  );

  it(
    "refuses a callback whose code was already exchanged (the upstream refuses it), as server_error",
    async () => {
      const { pending, callbackUrl } = await upstreamLogin("mei");
      await broker.provider.eid.finish(callbackUrl, pending);
      expectEidError(
        await broker.provider.eid.finish(callbackUrl, pending).catch((e: unknown) => e),
        "invalid_response",
        "server_error",
        502,
      );
    },
    TEST_MS,
  );

  it(
    "reads only the callback's query, against the redirect URI begin sent: another host in the callback URL changes nothing",
    async () => {
      const { pending, callbackUrl } = await upstreamLogin("mei");
      const elsewhere = new URL(callbackUrl);
      elsewhere.host = "attacker.example:8443";
      expect(await broker.provider.eid.finish(elsewhere.href, pending)).toEqual(MEI);
    },
    TEST_MS,
  );
});

describe("userinfo for an eID account", () => {
  async function userinfo(sub: string, scopes: string[]) {
    const code = await mintCode(broker, { sub, scopes, amr: ["eid"], acr: "1fa" });
    const tokens = await redeemCode(broker, code);
    expect(tokens.status, tokens.text).toBe(200);
    return send(`${broker.url}/connect/userinfo`, { headers: { authorization: `Bearer ${tokens.json!.access_token as string}` } });
  }

  it(
    "answers the claims the upstream gave at the last login, filtered by the token's scopes like an employee's",
    async () => {
      const { pending, callbackUrl } = await upstreamLogin("mei");
      await broker.provider.eid.finish(callbackUrl, pending);
      expect((await userinfo(MEI.sub, ["openid", "profile"])).json).toEqual({ sub: MEI.sub, name: "Mei Lin", birthdate: "1992/03/08" });
      // The broker maps no email_verified from this upstream: an address it did not vouch for is unverified.
      expect((await userinfo(MEI.sub, ["openid", "email"])).json).toEqual({
        sub: MEI.sub,
        email: "mei.lin@example.org",
        email_verified: false,
      });
    },
    TEST_MS,
  );

  it(
    "refuses a token of an eID sub no login ever recorded, as invalid_token",
    async () => {
      const { token } = broker.provider.accessTokens.issue({
        sub: "cz:CZ-0000-0000",
        clientId: "demo-web",
        scopes: ["openid", "profile"],
        resources: broker.provider.policies.current().scopes,
        lifetime: 3600,
      });
      const answer = await send(`${broker.url}/connect/userinfo`, { headers: { authorization: `Bearer ${token}` } });
      expect({ status: answer.status, error: answer.json?.error }).toEqual({ status: 401, error: "invalid_token" });
    },
    TEST_MS,
  );
});
