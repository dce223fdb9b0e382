import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import { generate } from "otplib";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/crypto/password-hash.ts";
import { errorHandler } from "../../src/http/middleware/error-handler.ts";
import { bearerClaims, requireBearer } from "../../src/http/middleware/require-bearer.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import {
  atCallback,
  ContextPerTest,
  DEMO_WEB_RP,
  signInWithPassword,
  startMethodSuite,
  submitPasswordForm,
  type MethodSuite,
} from "../support/browser-methods.ts";
import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";
import { extraUsers } from "../support/method-pages.ts";
import type { RpClient } from "../support/relying-party.ts";

/**
 * RFC 9470 end to end (issue 28 §6): an API protected by the shipped requireBearer middleware sends a
 * one-factor token back with an `insufficient_user_authentication` challenge; the relying party
 * (openid-client v6, which parses the challenge) sends the browser back to the authorize endpoint with
 * the challenge's acr_values or max_age (RFC 9470 §4); the user passes what is missing in Chromium and
 * the new access token is accepted. The provider and the API share one clock the test moves, so "an old
 * login" needs no sleeping.
 */
const SUITE = "Step-up API suite (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
// Several page loads, a sign-in and token exchanges per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

/** The demo's two-factor acr value (config/login.yaml acr_values): what the payroll route demands. */
const TWO_FACTOR_ACR = DEMO_ACR_VALUES.get("2fa")!.name;
/** Seconds the recent-login route accepts since the user's authentication. */
const MAX_AGE = 300;
const USERS = ["sam", "tess"] as const;
const API_SCOPE = "acme";

describe.skipIf(!haveChromium)("RFC 9470 step-up through the browser, against an API using requireBearer", () => {
  let suite: MethodSuite;
  let web: RpClient;
  let rp: oidc.Configuration;
  let server: Server;
  let api: string;
  /** Milliseconds the shared clock is ahead of the system's. */
  let ahead = 0;
  const clock = () => Date.now() + ahead;
  const contexts = new ContextPerTest(() => suite.browser);
  const secrets = new Map<string, string>();
  const subs = new Map<string, string>();

  beforeAll(async () => {
    const hashes = Object.fromEntries(
      await Promise.all(USERS.map(async (name) => [name, await hashPassword(`${name}-password`)] as const)),
    );
    suite = await startMethodSuite({
      methods: ["password"],
      clients: [{ ...DEMO_WEB_RP, scope: `openid profile ${API_SCOPE}` }],
      clock,
      edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000 }, "users.yaml": extraUsers(USERS, hashes) },
    });
    web = suite.web;
    const totp = suite.op.provider.methods.get("totp")!;
    for (const username of USERS) {
      const sub = (await suite.op.provider.policies.current().users.findByUsername(username))!.sub;
      subs.set(username, sub);
      const uri = await totp.plugin.enrollByOperator!(totp.context, sub, {});
      secrets.set(username, new URL(uri).searchParams.get("secret")!);
    }
    // The API: a loopback express app with the middleware the provider ships, one route per RFC 9470 demand.
    const verifier = suite.op.provider.accessTokenVerifier;
    const app = express();
    const answer = (_req: express.Request, res: express.Response) => {
      const { sub, acr, auth_time } = bearerClaims(res);
      res.json({ sub, acr, auth_time });
    };
    app.get("/payroll", requireBearer(verifier, { audience: "acme-api", scopes: [API_SCOPE], acrValues: [TWO_FACTOR_ACR] }), answer);
    app.get("/recent", requireBearer(verifier, { audience: "acme-api", scopes: [API_SCOPE], maxAge: MAX_AGE, clock }), answer);
    app.use(errorHandler(suite.op.provider.logger));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The relying party's own openid-client configuration, as its API calls would use.
    rp = await oidc.discovery(new URL(suite.op.issuer), DEMO_WEB_RP.clientId, undefined, oidc.ClientSecretPost(DEMO_WEB_RP.secret!), {
      execute: [oidc.allowInsecureRequests],
    });
  }, TIMEOUT);
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await suite?.close();
  });
  afterEach(() => contexts.close());

  /** The API call as the relying party makes it: the JSON answer, or the challenge openid-client parsed from a 401. */
  async function callApi(
    path: string,
    accessToken: string,
  ): Promise<{ ok: Record<string, unknown> } | { status: number; challenge: Record<string, string | undefined> }> {
    try {
      const res = await oidc.fetchProtectedResource(rp, accessToken, new URL(path, api), "GET");
      expect(res.status, await res.clone().text()).toBe(200);
      return { ok: (await res.json()) as Record<string, unknown> };
    } catch (err) {
      if (!(err instanceof oidc.WWWAuthenticateChallengeError)) throw err;
      const bearer = err.cause.find((c) => c.scheme === "bearer");
      expect(bearer, JSON.stringify(err.cause)).toBeDefined();
      return { status: err.status, challenge: { ...bearer!.parameters } };
    }
  }

  /** The TOTP step of a login page: the code `username`'s app shows at the shared clock's time. */
  async function passTotp(page: Page, username: string): Promise<void> {
    if ((await page.locator("#totp-code").count()) === 0) await page.locator('.other-methods button[value="totp"]').click();
    await page
      .getByLabel("Code from your authenticator app")
      .fill(await generate({ secret: secrets.get(username)!, epoch: Math.floor(clock() / 1000) }));
    await page.getByRole("button", { name: "Verify" }).click();
  }

  it(
    "challenges a password token with acr_values; the RP's step-up with them asks only the second factor, and the new token passes",
    async () => {
      const page = await contexts.page();
      await signInWithPassword(page, web, "sam");
      const oneFactor = web.signIns.at(-1)!;
      expect(decodeJwt(oneFactor.accessToken)).toMatchObject({
        sub: subs.get("sam"),
        acr: "1fa",
        aud: expect.arrayContaining(["acme-api"]),
      });

      const refused = await callApi("/payroll", oneFactor.accessToken);
      expect(refused).toMatchObject({
        status: 401,
        challenge: { error: "insufficient_user_authentication", acr_values: TWO_FACTOR_ACR },
      });
      const { challenge } = refused as { challenge: Record<string, string> };

      // RFC 9470 §4: a new authorization request with the challenge's acr_values.
      await page.goto(web.loginUrl({ acr_values: challenge.acr_values! }));
      // SSO: the session's password counts; only the missing factor is asked.
      await expect.poll(() => page.locator("#totp-code").count(), { timeout: 20_000, message: "the code field" }).toBe(1);
      expect(await page.locator('input[name="password"]').count()).toBe(0);
      await passTotp(page, "sam");
      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("sam")}`);
      const stepped = web.signIns.at(-1)!;
      expect(stepped.accessToken).not.toBe(oneFactor.accessToken);
      expect(stepped.claims).toMatchObject({ acr: TWO_FACTOR_ACR, amr: ["password", "totp", "mfa"] });

      expect(await callApi("/payroll", stepped.accessToken)).toEqual({
        ok: { sub: subs.get("sam"), acr: TWO_FACTOR_ACR, auth_time: expect.any(Number) },
      });
      // The one-factor token is still refused: the step-up raised the new token, not the old one.
      expect(await callApi("/payroll", oneFactor.accessToken)).toMatchObject({ status: 401 });
    },
    TIMEOUT,
  );

  it(
    "challenges a token whose login is older than max_age; SSO alone does not satisfy it, a login with max_age does",
    async () => {
      const page = await contexts.page();
      await signInWithPassword(page, web, "tess");
      const first = web.signIns.at(-1)!;
      expect(await callApi("/recent", first.accessToken)).toMatchObject({ ok: { sub: subs.get("tess") } });

      // Ten minutes later (the provider's clock and the API's both): the same token is too old a login.
      ahead += 2 * MAX_AGE * 1000;
      const refused = await callApi("/recent", first.accessToken);
      expect(refused).toMatchObject({
        status: 401,
        challenge: { error: "insufficient_user_authentication", max_age: String(MAX_AGE) },
      });
      expect((refused as { challenge: Record<string, string | undefined> }).challenge.acr_values).toBeUndefined();

      // A plain SSO round trip gets a new token of the same old login: still refused.
      await page.goto(web.loginUrl());
      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("tess")}`);
      const sso = web.signIns.at(-1)!;
      expect(sso.claims.auth_time).toBe(first.claims.auth_time);
      expect(await callApi("/recent", sso.accessToken)).toMatchObject({ status: 401, challenge: { max_age: String(MAX_AGE) } });

      // RFC 9470 §4: with the challenge's max_age the provider asks for the password again.
      const { challenge } = refused as { challenge: Record<string, string> };
      await page.goto(web.loginUrl({ max_age: challenge.max_age! }));
      await expect.poll(() => page.locator('input[name="password"]').count(), { timeout: 20_000, message: "the password form" }).toBe(1);
      await submitPasswordForm(page, "tess");
      expect((await atCallback(page, web)).status).toBe(`signed in as ${subs.get("tess")}`);
      const fresh = web.signIns.at(-1)!;
      expect(fresh.claims.auth_time as number).toBeGreaterThan(first.claims.auth_time as number);
      expect(await callApi("/recent", fresh.accessToken)).toMatchObject({
        ok: { sub: subs.get("tess"), auth_time: fresh.claims.auth_time },
      });
    },
    TIMEOUT,
  );
});
