/**
 * The eID login end to end: openid-client as demo-web's relying party, this provider on loopback as the
 * broker, and the upstream eID provider a second Portcullis in its own OS process (the demo's development
 * upstream, citizens mei and ravi). The browser is plain HTTP with one cookie jar for both, as a browser
 * keeps cookies per host whatever the port (both are on 127.0.0.1, as the demo's are on localhost); it
 * logs in at the upstream's password form and carries the callback back. /eID/authorize → upstream → /eID/callback
 * (a page that moves on to the client) → code with login_type=eID → tokens (login_type repeated) → userinfo; SSO; the upstream's refusals,
 * forged and crossed callbacks; the account page and logout of an eID session; the login as a machine (flows/eid.flow.ts) on the
 * audit trail, the diagrams page and `portcullis audit trace`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loginWithPassword } from "../support/browser-login.ts";
import { startEidUpstreamProcess, testEidUpstreamEdits, type EidUpstreamProcess } from "../support/eid-upstream.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startAuthorization, type PendingAuthorization } from "../support/rp-authorization.ts";
import { freePort } from "../support/services.ts";
import { postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { eventually } from "../support/relying-party.ts";
import { portcullis } from "../support/run-cli.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";

/** Two provider start-ups and scrypt logins on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
const TEST_MS = 60_000;

const WEB_CALLBACK = "http://localhost:3001/callback";
const MEI = { sub: "cz:CZ-4201-7781", name: "Mei Lin", birthdate: "1992/03/08" };

let broker: TestProvider;
let upstream: EidUpstreamProcess;
let rp: oidc.Configuration;
let events: AuditEvent[];

beforeAll(async () => {
  const port = await freePort();
  broker = await startTestProvider({
    edits: { "login.yaml": testEidUpstreamEdits(`http://127.0.0.1:${port}`) },
  });
  upstream = await startEidUpstreamProcess(port, `${broker.issuer}/eID/callback`);
  const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
  rp = await oidc.discovery(new URL(broker.issuer), "demo-web", undefined, oidc.ClientSecretPost("demo-web-secret"), { execute });
  events = collectAudit(broker);
}, SETUP_MS);

afterAll(async () => {
  await upstream?.stop();
  await broker?.close();
});

type PendingLogin = PendingAuthorization;

/** demo-web's authorize request (PKCE S256, state, nonce), sent to /eID/authorize; `params` add or replace. */
async function startEidLogin(params: Record<string, string> = {}): Promise<PendingLogin> {
  const pending = await startAuthorization(rp, { redirect_uri: WEB_CALLBACK, scope: "openid profile", ...params });
  pending.url.pathname = "/eID/authorize";
  return pending;
}

/** /eID/authorize in `browser`: the redirect to the upstream's authorization endpoint. */
async function toUpstream(browser: RawBrowser, pending: PendingLogin): Promise<Answer> {
  const answer = await browser.get(pending.url.href);
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  expect(answer.location!.startsWith(`${upstream.issuer}/connect/authorize?`)).toBe(true);
  return answer;
}

/** The whole login in `browser`: to the upstream, its password form, back to /eID/callback; the answer to the client. */
async function eidLogin(browser: RawBrowser, pending: PendingLogin, username = "mei"): Promise<Answer> {
  const atUpstream = await toUpstream(browser, pending);
  const back = await loginWithPassword(browser, atUpstream.location!, username, `${username}-password`);
  expect(back.status, back.text.slice(0, 300)).toBe(303);
  expect(back.location!.startsWith(`${broker.issuer}/eID/callback?`)).toBe(true);
  return throughPage(await browser.get(back.location!));
}

/**
 * /eID/callback answers the client with a page that moves the browser on (its script, or its
 * Continue link): a redirect would continue the upstream's form post, and the upstream page's CSP
 * form-action, which lists only the broker, would stop it. The redirect the page stands for.
 */
function throughPage(answer: Answer): Answer {
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const href = /<a id="continue"[^>]*href="([^"]*)"/.exec(answer.text)?.[1];
  expect(href, answer.text.slice(0, 300)).toBeDefined();
  expect(answer.text).toContain("window.top.location.href");
  const entities: Record<string, string> = {
    "&amp;": "&",
    "&#x3D;": "=",
    "&quot;": '"',
    "&#x27;": "'",
    "&lt;": "<",
    "&gt;": ">",
    "&#x60;": "`",
  };
  return { ...answer, status: 303, location: href!.replace(/&amp;|&#x3D;|&quot;|&#x27;|&lt;|&gt;|&#x60;/g, (entity) => entities[entity]!) };
}

/** The authorization response the client gets (a 303 to its redirect URI). */
function toClient(answer: Answer): URL {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  const url = new URL(answer.location!);
  expect(url.origin + url.pathname).toBe(WEB_CALLBACK);
  return url;
}

/** openid-client redeems the code; `tokenParams` are extra token request parameters (login_type). */
function redeem(pending: PendingLogin, answer: Answer, tokenParams: Record<string, string> = { login_type: "eID" }) {
  return oidc.authorizationCodeGrant(rp, toClient(answer), pending.checks, tokenParams);
}

/** The OAuth error openid-client threw (a refused token request, or an error authorization response). */
async function oauthError(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return (error as { error?: string }).error;
}

describe("an eID login through the upstream eID provider", () => {
  it(
    "returns the code with login_type=eID; tokens for the eID account when the token request repeats it; userinfo has the mapped claims",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin();
      const answer = await eidLogin(browser, pending);
      const response = toClient(answer);
      expect(response.searchParams.get("login_type")).toBe("eID");
      expect(response.searchParams.get("iss")).toBe(broker.issuer);

      const tokens = await redeem(pending, answer);
      expect(tokens.claims()).toMatchObject({
        iss: broker.issuer,
        aud: "demo-web",
        sub: MEI.sub,
        amr: ["eid"],
        nonce: pending.checks.expectedNonce,
      });
      expect(await oidc.fetchUserInfo(rp, tokens.access_token, MEI.sub)).toEqual(MEI);
    },
    TEST_MS,
  );

  it(
    "refuses the token request without login_type, or with another value, as invalid_grant",
    async () => {
      for (const tokenParams of [{}, { login_type: "2FA" }, { login_type: "EID" }] as Record<string, string>[]) {
        const pending = await startEidLogin();
        const answer = await eidLogin(new RawBrowser(), pending, "ravi");
        expect(await oauthError(redeem(pending, answer, tokenParams))).toBe("invalid_grant");
      }
    },
    TEST_MS,
  );

  it(
    "accepts login_type eID in any case at /eID/authorize and returns it as sent; any other login_type is invalid_request at the client",
    async () => {
      const pending = await startEidLogin({ login_type: "eid" });
      const answer = await eidLogin(new RawBrowser(), pending, "ravi");
      expect(toClient(answer).searchParams.get("login_type")).toBe("eid");
      expect((await redeem(pending, answer, { login_type: "eid" })).claims()!.sub).toBe("cz:CZ-4201-9034");

      const other = await startEidLogin({ login_type: "2FA" });
      const refused = toClient(await new RawBrowser().get(other.url.href));
      expect([refused.searchParams.get("error"), refused.searchParams.get("state")]).toEqual([
        "invalid_request",
        other.checks.expectedState,
      ]);
    },
    TEST_MS,
  );
});

describe("login_type=eID at the standard address", () => {
  it(
    "brokers /connect/authorize?login_type=eID to the upstream like /eID/authorize, and its session serves /eID/authorize by SSO",
    async () => {
      const browser = new RawBrowser();
      const pending = await startAuthorization(rp, { redirect_uri: WEB_CALLBACK, scope: "openid profile", login_type: "eID" });
      expect(pending.url.pathname).toBe("/connect/authorize");
      const answer = await eidLogin(browser, pending, "ravi");
      expect(toClient(answer).searchParams.get("login_type")).toBe("eID");
      expect((await redeem(pending, answer)).claims()).toMatchObject({ sub: "cz:CZ-4201-9034", amr: ["eid"] });

      const again = await startEidLogin({ prompt: "none" });
      expect((await redeem(again, await browser.get(again.url.href))).claims()!.sub).toBe("cz:CZ-4201-9034");
    },
    TEST_MS,
  );
});

describe("single sign-on for eID accounts", () => {
  it(
    "answers a second /eID/authorize from the session: a code at once, without a trip to the upstream",
    async () => {
      const browser = new RawBrowser();
      const first = await startEidLogin();
      await redeem(first, await eidLogin(browser, first));

      const second = await startEidLogin({ prompt: "none" });
      const answer = await browser.get(second.url.href);
      expect(toClient(answer).searchParams.get("login_type")).toBe("eID");
      expect((await redeem(second, answer)).claims()!.sub).toBe(MEI.sub);
    },
    TEST_MS,
  );

  it(
    "is login_required for prompt=none without an eID session; an employee's session does not count",
    async () => {
      const browser = new RawBrowser();
      const none = await startEidLogin({ prompt: "none" });
      expect(toClient(await browser.get(none.url.href)).searchParams.get("error")).toBe("login_required");

      // alice signs in at /connect/authorize in the same browser: still no eID session.
      const employee = new URL(none.url);
      employee.pathname = "/connect/authorize";
      employee.searchParams.delete("prompt");
      toClient(await loginWithPassword(browser, employee.href));
      const again = await startEidLogin({ prompt: "none" });
      expect(toClient(await browser.get(again.url.href)).searchParams.get("error")).toBe("login_required");
      await toUpstream(browser, await startEidLogin());
    },
    TEST_MS,
  );

  it(
    "sends prompt=login and max_age upstream instead of answering from the session",
    async () => {
      const browser = new RawBrowser();
      const first = await startEidLogin();
      await redeem(first, await eidLogin(browser, first));
      const again = new URL((await toUpstream(browser, await startEidLogin({ prompt: "login", max_age: "300" }))).location!);
      expect([again.searchParams.get("prompt"), again.searchParams.get("max_age")]).toEqual(["login", "300"]);
    },
    TEST_MS,
  );

  it(
    "shows the eID account on /account (its name, no methods to set up or remove), and logs it out",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin();
      const tokens = await redeem(pending, await eidLogin(browser, pending));

      const account = await browser.get(`${broker.issuer}/account`);
      expect(account.status).toBe(200);
      expect(account.text).toContain("Signed in as Mei Lin");
      expect(account.text).not.toContain('name="method"');
      expect((await browser.get(`${broker.issuer}/account/remove?method=totp`)).status).toBe(400);

      const logout = oidc.buildEndSessionUrl(rp, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: "http://localhost:3001/" });
      const loggedOut = await browser.get(logout.href);
      expect([loggedOut.status, loggedOut.location]).toEqual([303, "http://localhost:3001/"]);
      const after = await startEidLogin({ prompt: "none" });
      expect(toClient(await browser.get(after.url.href)).searchParams.get("error")).toBe("login_required");
    },
    TEST_MS,
  );
});

describe("what the upstream and the browser send back", () => {
  it(
    "turns the upstream's error=access_denied into access_denied at the client, with the client's state",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin();
      const atUpstream = new URL((await toUpstream(browser, pending)).location!);
      const denied = new URL(`${broker.issuer}/eID/callback`);
      for (const [name, value] of Object.entries({
        error: "access_denied",
        state: atUpstream.searchParams.get("state")!,
        iss: upstream.issuer,
      }))
        denied.searchParams.set(name, value);
      const answer = throughPage(await browser.get(denied.href));
      expect(toClient(answer).searchParams.get("state")).toBe(pending.checks.expectedState);
      expect(await oauthError(redeem(pending, answer))).toBe("access_denied");
    },
    TEST_MS,
  );

  it(
    "answers login_required when another citizen logs in at the upstream than the one id_token_hint names",
    async () => {
      const first = await startEidLogin();
      const mei = await redeem(first, await eidLogin(new RawBrowser(), first, "mei"));
      const hinted = await startEidLogin({ id_token_hint: mei.id_token! });
      const answer = await eidLogin(new RawBrowser(), hinted, "ravi");
      expect(toClient(answer).searchParams.get("error")).toBe("login_required");
    },
    TEST_MS,
  );

  it(
    "refuses a forged state and another browser's callback with a page, and completes the login once, in its own browser",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin();
      const atUpstream = await toUpstream(browser, pending);
      const back = await loginWithPassword(browser, atUpstream.location!, "mei", "mei-password");

      const forged = new URL(back.location!);
      forged.searchParams.set("state", "forged-state");
      const refused = await browser.get(forged.href);
      expect([refused.status, refused.location]).toEqual([400, undefined]);
      expect(refused.text).toContain("this eID login is not known here");

      const elsewhere = await new RawBrowser().get(back.location!);
      expect([elsewhere.status, elsewhere.location]).toEqual([400, undefined]);

      const answer = throughPage(await browser.get(back.location!));
      expect((await redeem(pending, answer)).claims()!.sub).toBe(MEI.sub);
      const replayed = await browser.get(back.location!);
      expect([replayed.status, replayed.location]).toEqual([400, undefined]);
    },
    TEST_MS,
  );
});

describe("the eID login as a machine (flows/eid.flow.ts), like every other login", () => {
  const eidFlow = () => broker.provider.policies.current().flows.get("login_type.eID")!;
  /** The login events of the login that issued `code`'s tokens, found by their login id. */
  const loginEvents = (loginId: string) =>
    events.filter((e) => (e.type === "login.succeeded" || e.type === "login.failed") && e.login_id === loginId);

  it(
    "records login.succeeded with the eID flow's id, machine hash and the path of its states, and archives that machine version",
    async () => {
      const pending = await startEidLogin();
      const tokens = await redeem(pending, await eidLogin(new RawBrowser(), pending, "ravi"));
      const issued = eventsOf(events, "token.issued").find((e) => e.jti === decodeJwt(tokens.access_token).jti)!;
      const [login] = loginEvents(issued.login_id!);
      expect(login).toMatchObject({
        type: "login.succeeded",
        flow_id: "login_type.eID",
        machine_hash: eidFlow().hash,
        path: ["awaitingCallback", "authenticated"],
        client_id: "demo-web",
        login_type: "eID",
        sub: "cz:CZ-4201-9034",
        amr: ["eid"],
        acr: "1fa",
      });
      expect(existsSync(join(broker.provider.settings.data_dir, "machines", `${eidFlow().hash}.json`))).toBe(true);
    },
    TEST_MS,
  );

  it(
    "records an upstream refusal as login.failed ending in the failed state, with the failure as its reason",
    async () => {
      const browser = new RawBrowser();
      const pending = await startEidLogin();
      const state = new URL((await toUpstream(browser, pending)).location!).searchParams.get("state")!;
      events.length = 0;
      const denied = new URL(`${broker.issuer}/eID/callback`);
      for (const [name, value] of Object.entries({ error: "access_denied", state, iss: upstream.issuer }))
        denied.searchParams.set(name, value);
      expect(toClient(throughPage(await browser.get(denied.href))).searchParams.get("error")).toBe("access_denied");
      expect(eventsOf(events, "login.failed")).toMatchObject([
        {
          flow_id: "login_type.eID",
          machine_hash: eidFlow().hash,
          path: ["awaitingCallback", "failed"],
          client_id: "demo-web",
          login_type: "eID",
          reason: "access_denied",
        },
      ]);
    },
    TEST_MS,
  );

  it(
    "is drawn on the diagrams page, which its machine hash leads to, and `audit trace` draws the token's login on it with its path",
    async () => {
      const pending = await startEidLogin();
      const tokens = await redeem(pending, await eidLogin(new RawBrowser(), pending, "ravi"));
      const jti = String(decodeJwt(tokens.access_token).jti);
      const page = await fetch(`${broker.issuer}/diagrams/machine/${eidFlow().hash}`);
      expect([page.status, page.url]).toEqual([200, `${broker.issuer}/diagrams/login-eid`]);
      expect(await page.text()).toContain("s_awaitingCallback --&gt; s_mappingAccount : UPSTREAM_CALLBACK");
      const auditFile = join(broker.provider.settings.data_dir, "audit.log");
      await eventually(() => existsSync(auditFile) && readFileSync(auditFile, "utf8").includes(jti), "the token.issued line");
      const trace = await portcullis(["audit", "trace", "--config", broker.configDir, "--", jti]);
      expect([trace.code, trace.stderr]).toEqual([0, ""]);
      expect(trace.stdout).toContain(`machine: flow login_type.eID, hash ${eidFlow().hash}`);
      expect(trace.stdout).toContain("path:    awaitingCallback → authenticated");
      expect(trace.stdout).toContain(
        `diagram page: ${broker.issuer}/diagrams/machine/${eidFlow().hash} (leads to ${broker.issuer}/diagrams/login-eid while the provider runs this version)`,
      );
      expect(trace.stdout).toContain("  class s_awaitingCallback,s_authenticated taken\n");
    },
    TEST_MS,
  );
});

describe("an upstream eID provider that is down", () => {
  it(
    "answers temporarily_unavailable at the client's redirect URI, with its state",
    async () => {
      const down = await startTestProvider({ edits: { "login.yaml": testEidUpstreamEdits(`http://127.0.0.1:${await freePort()}`) } });
      try {
        const authorize = new URL("/eID/authorize", down.issuer);
        for (const [name, value] of Object.entries({
          client_id: "demo-web",
          redirect_uri: WEB_CALLBACK,
          response_type: "code",
          scope: "openid",
          state: "s-down",
        }))
          authorize.searchParams.set(name, value);
        const response = toClient(await new RawBrowser().get(authorize.href));
        expect([response.searchParams.get("error"), response.searchParams.get("state"), response.searchParams.get("iss")]).toEqual([
          "temporarily_unavailable",
          "s-down",
          down.issuer,
        ]);
      } finally {
        await down.close();
      }
    },
    SETUP_MS,
  );
});

describe("the demo's eID login", () => {
  it(
    "serves /eID/authorize through the development eID provider the demo config declares, started at the first eID login",
    async () => {
      const port = await freePort();
      const brokerPort = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const upstreamData = mkdtempSync(join(tmpdir(), "portcullis-dev-eid-"));
      const demo = await startTestProvider({
        issuer: `http://127.0.0.1:${brokerPort}`,
        edits: {
          "provider.yaml": { "listen.port": brokerPort },
          "login.yaml": { "eid_upstreams.dev-eid.issuer": issuer, "eid_upstreams.dev-eid.development.port": port },
          "dev-eid-upstream/provider.yaml": { issuer, "listen.port": port, data_dir: upstreamData },
          "dev-eid-upstream/clients.yaml": { "clients.0.redirect_uris": [`http://127.0.0.1:${brokerPort}/eID/callback`] },
        },
      });
      try {
        const browser = new RawBrowser();
        const authorize = new URL("/eID/authorize", demo.issuer);
        for (const [name, value] of Object.entries({
          client_id: "demo-web",
          redirect_uri: WEB_CALLBACK,
          response_type: "code",
          scope: "openid profile",
          state: "demo",
        }))
          authorize.searchParams.set(name, value);
        const atUpstream = await browser.get(authorize.href);
        expect(atUpstream.location!.startsWith(`${issuer}/connect/authorize?`)).toBe(true);
        const back = await loginWithPassword(browser, atUpstream.location!, "mei", "mei-password");
        const response = toClient(throughPage(await browser.get(back.location!)));
        expect([response.searchParams.get("login_type"), response.searchParams.get("state")]).toEqual(["eID", "demo"]);
        const form = {
          grant_type: "authorization_code",
          client_id: "demo-web",
          client_secret: "demo-web-secret",
          redirect_uri: WEB_CALLBACK,
          login_type: "eID",
          code: response.searchParams.get("code")!,
        };
        const tokens = await postForm(`${demo.url}/connect/token`, form);
        expect(tokens.status, tokens.text).toBe(200);
        const userinfo = await send(`${demo.url}/connect/userinfo`, {
          headers: { authorization: `Bearer ${tokens.json!.access_token as string}` },
        });
        expect(userinfo.json).toEqual({ sub: "eid:CZ-4201-7781", name: "Mei Lin", birthdate: "1992/03/08" });
      } finally {
        await demo.close();
        rmSync(upstreamData, { recursive: true, force: true });
      }
    },
    SETUP_MS,
  );
});
