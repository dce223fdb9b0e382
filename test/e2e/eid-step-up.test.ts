/**
 * An eID step-up end to end (issue 28 §6): acr_values at /eID/authorize are forwarded to the upstream
 * eID provider as login.yaml's `acr.forward` maps them, and the token's acr is what the upstream says
 * it performed (its ID token's acr, verified by openid-client, mapped back through `acr.performed`) —
 * never what was asked. The upstream is the demo's development eID provider (a second Portcullis in its
 * own OS process), which honours acr_values 2fa with the password and a code by e-mail (to an SMTP
 * server on loopback) and ignores values it does not declare, as OIDC lets it. Two brokers share it: one
 * with the demo's mapping (2fa → the upstream's 2fa: honoured), one that forwards 2fa as a level the
 * upstream does not know (downgraded: the upstream performs a password login, and says so).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EidError } from "../../src/eid/eid-error.ts";
import { errorHandler } from "../../src/http/middleware/error-handler.ts";
import { requireBearer } from "../../src/http/middleware/require-bearer.ts";
import { loginWithPassword, openLoginPage, submitPassword } from "../support/browser-login.ts";
import { startEmailDelivery, type CodeDelivery } from "../support/code-deliveries.ts";
import { sendCode, submitCode } from "../support/code-login.ts";
import { startEidUpstreamProcess, testEidUpstreamEdits, type EidUpstreamProcess } from "../support/eid-upstream.ts";
import { attributeValue, RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startAuthorization, type PendingAuthorization } from "../support/rp-authorization.ts";
import { freePort } from "../support/services.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/** Three provider start-ups and scrypt logins on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
const TEST_MS = 60_000;

const WEB_CALLBACK = "http://localhost:3001/callback";
const MEI = { sub: "cz:CZ-4201-7781", email: "mei.lin@example.org" };
/** A level the upstream does not declare: it ignores it (a voluntary acr value, OIDC Core §3.1.2.1). */
const UNKNOWN_LEVEL = "urn:example:loa:high";

let honouring: TestProvider;
let downgraded: TestProvider;
let upstream: EidUpstreamProcess;
let email: CodeDelivery;
const parties = new Map<TestProvider, oidc.Configuration>();
/** An API of each broker's that wants a two-factor login (requireBearer, RFC 9470), by broker. */
const payroll = new Map<TestProvider, string>();
let api: Server;

beforeAll(async () => {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  email = await startEmailDelivery();
  [honouring, downgraded] = await Promise.all([
    startTestProvider({ edits: { "login.yaml": testEidUpstreamEdits(issuer) } }),
    startTestProvider({
      edits: { "login.yaml": testEidUpstreamEdits(issuer, { forward: { "2fa": UNKNOWN_LEVEL }, performed: { [UNKNOWN_LEVEL]: "2fa" } }) },
    }),
  ]);
  upstream = await startEidUpstreamProcess(
    port,
    [honouring, downgraded].map((broker) => `${broker.issuer}/eID/callback`),
    email.edits,
  );
  const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
  for (const broker of [honouring, downgraded])
    parties.set(
      broker,
      await oidc.discovery(new URL(broker.issuer), "demo-web", undefined, oidc.ClientSecretPost("demo-web-secret"), { execute }),
    );
  const app = express();
  for (const [name, broker] of [
    ["honouring", honouring],
    ["downgraded", downgraded],
  ] as const) {
    const audience = `${broker.issuer}/connect/userinfo`;
    app.get(`/${name}/payroll`, requireBearer(broker.provider.accessTokenVerifier, { audience, acrValues: ["2fa"] }), (_req, res) => {
      res.json({ ok: true });
    });
  }
  app.use(errorHandler(honouring.provider.logger));
  api = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  payroll.set(honouring, `${apiUrl}/honouring/payroll`).set(downgraded, `${apiUrl}/downgraded/payroll`);
}, SETUP_MS);

afterAll(async () => {
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
  await upstream?.stop();
  await Promise.all([honouring?.close(), downgraded?.close()]);
  await email?.close();
});

/** demo-web's authorize request at `broker`'s /eID/authorize; `params` add or replace. */
async function startEidLogin(broker: TestProvider, params: Record<string, string> = {}): Promise<PendingAuthorization> {
  const pending = await startAuthorization(parties.get(broker)!, { redirect_uri: WEB_CALLBACK, scope: "openid profile", ...params });
  pending.url.pathname = "/eID/authorize";
  return pending;
}

/** /eID/authorize in `browser`: the upstream authorization request it sends the browser to. */
async function toUpstream(browser: RawBrowser, pending: PendingAuthorization): Promise<URL> {
  const answer = await browser.get(pending.url.href);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  expect(answer.location!.startsWith(`${upstream.issuer}/connect/authorize?`)).toBe(true);
  return new URL(answer.location!);
}

/** The upstream's e-mail code step, from its send page: the code sent to mei, typed in. The answer that leaves the upstream. */
async function passEmailCode(browser: RawBrowser, sendPage: Answer): Promise<Answer> {
  expect(sendPage.text, sendPage.text.slice(0, 300)).toContain('name="event" value="SEND_CODE"');
  const before = email.countTo(MEI.email);
  const codePage = await browser.follow(await sendCode(browser, sendPage));
  expect(email.countTo(MEI.email)).toBe(before + 1);
  return submitCode(browser, codePage, email.lastCodeTo(MEI.email));
}

/** Back at the broker's /eID/callback: the page that moves the browser on to the client, read as the redirect it stands for. */
async function backAtBroker(browser: RawBrowser, broker: TestProvider, fromUpstream: Answer): Promise<URL> {
  expect(fromUpstream.status, fromUpstream.text.slice(0, 300)).toBe(303);
  expect(fromUpstream.location!.startsWith(`${broker.issuer}/eID/callback?`)).toBe(true);
  const page = await browser.get(fromUpstream.location!);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const href = /<a id="continue"[^>]*href="([^"]*)"/.exec(page.text)?.[1];
  expect(href, page.text.slice(0, 300)).toBeDefined();
  const url = new URL(attributeValue(href!));
  expect(url.origin + url.pathname).toBe(WEB_CALLBACK);
  return url;
}

/** openid-client redeems the code, repeating login_type as the spec says: the ID token's claims and the access token's. */
async function redeem(broker: TestProvider, pending: PendingAuthorization, response: URL) {
  const tokens = await oidc.authorizationCodeGrant(parties.get(broker)!, response, pending.checks, { login_type: "eID" });
  return { id: tokens.claims()!, access: decodeJwt(tokens.access_token), accessToken: tokens.access_token };
}

/** The broker's two-factor API called with `accessToken`: its status and RFC 9470 challenge. */
async function callPayroll(broker: TestProvider, accessToken: string): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(payroll.get(broker)!, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, challenge: res.headers.get("www-authenticate") };
}

/** A whole eID login of mei that the upstream serves with its password form alone. */
async function passwordLogin(browser: RawBrowser, broker: TestProvider, pending: PendingAuthorization) {
  const atUpstream = await toUpstream(browser, pending);
  return redeem(
    broker,
    pending,
    await backAtBroker(browser, broker, await loginWithPassword(browser, atUpstream.href, "mei", "mei-password")),
  );
}

describe("a step-up the upstream honours", () => {
  it(
    "forwards acr_values 2fa as the upstream's 2fa; the upstream asks the password and an e-mail code; both tokens say acr 2fa",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin(honouring, { acr_values: "2fa" });
      const atUpstream = await toUpstream(browser, pending);
      expect(atUpstream.searchParams.get("acr_values")).toBe("2fa");

      const afterPassword = await browser.follow(
        await submitPassword(browser, await openLoginPage(browser, atUpstream.href), "mei", "mei-password"),
      );
      const tokens = await redeem(honouring, pending, await backAtBroker(browser, honouring, await passEmailCode(browser, afterPassword)));
      expect(tokens.id).toMatchObject({ sub: MEI.sub, acr: "2fa", amr: ["eid"] });
      expect(tokens.access).toMatchObject({ sub: MEI.sub, acr: "2fa" });
      // The API that wants a two-factor login takes it.
      expect(await callPayroll(honouring, tokens.accessToken)).toEqual({ status: 200, challenge: null });
    },
    TEST_MS,
  );

  it(
    "does not let a one-factor eID session answer acr_values 2fa: the browser goes back to the upstream, and the new session is 2fa",
    async () => {
      const browser = new RawBrowser();
      const first = await startEidLogin(honouring);
      const oneFactor = await passwordLogin(browser, honouring, first);
      expect(oneFactor.id).toMatchObject({ sub: MEI.sub, acr: "1fa" });
      // Nothing asked: the eID session answers, without a trip upstream.
      const sso = await startEidLogin(honouring, { prompt: "none" });
      expect((await browser.get(sso.url.href)).location!.startsWith(WEB_CALLBACK)).toBe(true);

      // 2fa asked of a 1fa session: not from the session (prompt=none cannot go further)...
      const silent = await startEidLogin(honouring, { acr_values: "2fa", prompt: "none" });
      const refused = new URL((await browser.get(silent.url.href)).location!);
      expect(refused.searchParams.get("error")).toBe("login_required");

      // ...but upstream, with the upstream's 2fa. One cookie jar for both providers on one host (as a
      // browser keeps cookies whatever the port): the broker's session cookie has the upstream's name, so
      // the upstream has no session of its own here and runs its whole 2fa login; its step-up over a
      // session of its own (the e-mail code alone) is the essential-acr test's below.
      const stepUp = await startEidLogin(honouring, { acr_values: "2fa" });
      const atUpstream = await toUpstream(browser, stepUp);
      expect(atUpstream.searchParams.get("acr_values")).toBe("2fa");
      const codeStep = await browser.follow(
        await submitPassword(browser, await openLoginPage(browser, atUpstream.href), "mei", "mei-password"),
      );
      const stepped = await redeem(honouring, stepUp, await backAtBroker(browser, honouring, await passEmailCode(browser, codeStep)));
      expect(stepped.id).toMatchObject({ sub: MEI.sub, acr: "2fa" });
      expect(stepped.id.auth_time as number).toBeGreaterThanOrEqual(oneFactor.id.auth_time as number);

      // The stepped-up session now answers the same request from SSO, at 2fa.
      const again = await startEidLogin(honouring, { acr_values: "2fa", prompt: "none" });
      const answer = await browser.get(again.url.href);
      expect((await redeem(honouring, again, new URL(answer.location!))).id).toMatchObject({ sub: MEI.sub, acr: "2fa" });
    },
    TEST_MS,
  );
});

describe("a step-up the upstream does not perform", () => {
  it(
    "forwards 2fa as a level the upstream ignores; it performs a password login and says acr 1fa: the token says 1fa, never 2fa",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin(downgraded, { acr_values: "2fa" });
      const atUpstream = await toUpstream(browser, pending);
      expect(atUpstream.searchParams.get("acr_values")).toBe(UNKNOWN_LEVEL);
      const back = await backAtBroker(browser, downgraded, await loginWithPassword(browser, atUpstream.href, "mei", "mei-password"));
      const tokens = await redeem(downgraded, pending, back);
      expect(tokens.id).toMatchObject({ sub: MEI.sub, acr: "1fa" });
      expect(tokens.access).toMatchObject({ sub: MEI.sub, acr: "1fa" });
      // An API that wants a two-factor login sends the client back with an RFC 9470 challenge.
      const refused = await callPayroll(downgraded, tokens.accessToken);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(/error="insufficient_user_authentication".*acr_values="2fa"/);
    },
    TEST_MS,
  );

  it(
    "forwards an essential acr of the claims parameter as an essential ask: a login the upstream downgrades ends in unmet_authentication_requirements at the client",
    async () => {
      const browser = new RawBrowser();
      const claims = JSON.stringify({ id_token: { acr: { essential: true, values: ["2fa"] } } });
      const pending = await startEidLogin(downgraded, { claims });
      const atUpstream = await toUpstream(browser, pending);
      expect(atUpstream.searchParams.get("acr_values")).toBe(UNKNOWN_LEVEL);
      const back = await backAtBroker(browser, downgraded, await loginWithPassword(browser, atUpstream.href, "mei", "mei-password"));
      expect(back.searchParams.get("error")).toBe("unmet_authentication_requirements");
      expect(back.searchParams.get("code")).toBeNull();
    },
    TEST_MS,
  );

  it(
    "fails the login with unmet_authentication_requirements when the ask was essential, and keeps it when the upstream met it",
    async () => {
      const callback = (broker: TestProvider) => `${broker.issuer}/eID/callback`;
      // The broker's relying party itself, asked for an essential 2fa (what the client's claims parameter would ask).
      const unmet = await downgraded.provider.eid.begin("test-eid", callback(downgraded), { acr: ["2fa"], acrEssential: true });
      const browser = new RawBrowser();
      const fromUpstream = await loginWithPassword(browser, unmet.url.href, "mei", "mei-password");
      const failure = await downgraded.provider.eid.finish(fromUpstream.location!, unmet.pending).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(EidError);
      expect({ failure: (failure as EidError).failure, error: (failure as EidError).error }).toEqual({
        failure: "unmet_authentication_requirements",
        error: "unmet_authentication_requirements",
      });

      const met = await honouring.provider.eid.begin("test-eid", callback(honouring), { acr: ["2fa"], acrEssential: true });
      // The upstream's own session (the password, just now) counts: its step-up asks only the e-mail code.
      const codeStep = await browser.follow(await browser.get(met.url.href));
      expect(codeStep.text).not.toContain('name="password"');
      const account = await honouring.provider.eid.finish((await passEmailCode(browser, codeStep)).location!, met.pending);
      expect(account).toMatchObject({ sub: MEI.sub, acr: "2fa" });
    },
    TEST_MS,
  );
});
