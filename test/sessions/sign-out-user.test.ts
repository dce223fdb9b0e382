/**
 * Signing a user out everywhere (src/sessions/sign-out-user.ts) against a real provider on loopback:
 * alice signed in from two browsers at two clients whose back- and front-channel logout URIs are real
 * relying-party servers, bob beside her. The service ends every session, refresh family and access
 * token of hers — JWT and reference, inside a family and out — tells each client, owes each browser
 * the front-channel logout, and leaves bob alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { authorizeUrl } from "../support/browser-login.ts";
import { attributeValue, logoutFrames, RawBrowser } from "../support/raw-browser.ts";
import { startRelyingParty, type RelyingParty } from "../support/relying-party.ts";
import { signInThrough, tokenState, type SignedIn, type SigningClient } from "../support/signed-in-user.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { listUserAccess } from "../../src/sessions/user-access.ts";
import { signOutUser, type UserSignOut } from "../../src/sessions/sign-out-user.ts";

const ALICE = { sub: "E10001", username: "alice" };
const BOB = { username: "bob", password: "bob-password" };
const OPERATOR = { by: "cli", operator: "test-operator" } as const;

let rp: RelyingParty;
let p: TestProvider;
let events: AuditEvent[];
let web: SigningClient;
let portal: SigningClient;

beforeAll(async () => {
  rp = await startRelyingParty([
    { clientId: "demo-web", secret: "demo-web-secret", configIndex: 0, frontChannel: true },
    { clientId: "demo-portal", secret: "demo-portal-secret", configIndex: 4 },
  ]);
  p = await startTestProvider({ edits: { "clients.yaml": rp.configEdits() } });
  await rp.connect(p.issuer);
  events = collectAudit(p);
  web = { id: "demo-web", secret: "demo-web-secret", redirectUri: rp.client("demo-web").redirectUri };
  portal = { id: "demo-portal", secret: "demo-portal-secret", redirectUri: rp.client("demo-portal").redirectUri };
});
afterAll(async () => {
  await p?.close();
  await rp?.close();
});

describe("signing a user out everywhere", () => {
  const first = new RawBrowser();
  const second = new RawBrowser();
  let familyAtWeb: SignedIn;
  let referenceAtPortal: SignedIn;
  let plainAtWeb: SignedIn;
  let bobs: SignedIn;
  let outcome: UserSignOut;

  beforeAll(async () => {
    // The first browser: a refresh family at demo-web (JWTs), then SSO to demo-portal (a reference token outside a family).
    familyAtWeb = await signInThrough(first, p, web, "openid profile acme offline_access");
    referenceAtPortal = await signInThrough(first, p, portal, "openid profile acme");
    // The second browser: a session of its own, a JWT outside a family.
    plainAtWeb = await signInThrough(second, p, web, "openid profile acme");
    bobs = await signInThrough(new RawBrowser(), p, web, "openid profile acme offline_access", BOB);
  });

  it("lists what the user holds: both sessions with their clients and address, the family, the tokens outside a family", async () => {
    const access = await listUserAccess(p.provider, ALICE, OPERATOR);
    expect(access.sessions.map((s) => ({ sid: s.sid, clients: [...s.clients].sort(), address: s.address, methods: s.methods }))).toEqual([
      { sid: familyAtWeb.sid, clients: ["demo-portal", "demo-web"], address: "127.0.0.1", methods: ["password"] },
      { sid: plainAtWeb.sid, clients: ["demo-web"], address: "127.0.0.1", methods: ["password"] },
    ]);
    expect(familyAtWeb.sid).toBe(referenceAtPortal.sid);
    expect(access.refreshFamilies).toEqual([expect.objectContaining({ clientId: "demo-web", sid: familyAtWeb.sid })]);
    expect(access.accessTokens.map((t) => `${t.clientId} ${t.format}`).sort()).toEqual(["demo-portal reference", "demo-web jwt"]);
    expect(eventsOf(events, "user.sessions_listed")).toEqual([{ type: "user.sessions_listed", sub: "E10001", ...OPERATOR }]);
  });

  it("ends every session, family and access token of hers, and only hers", async () => {
    for (const [signedIn, client] of [
      [familyAtWeb, web],
      [referenceAtPortal, portal],
      [plainAtWeb, web],
    ] as const)
      expect((await tokenState(p, signedIn, client)).active).toBe(true);

    outcome = await signOutUser(p.provider, p.provider.policies.current(), ALICE, OPERATOR);
    expect(outcome.sessions.map((s) => s.sid).sort()).toEqual([familyAtWeb.sid, plainAtWeb.sid].sort());
    expect(outcome.refreshFamilies).toHaveLength(1);
    expect(outcome.accessTokens.map((t) => t.format).sort()).toEqual(["jwt", "reference"]);

    expect(await tokenState(p, familyAtWeb, web)).toEqual({
      userinfo: 401,
      active: false,
      refresh: { status: 400, error: "invalid_grant" },
    });
    expect(await tokenState(p, referenceAtPortal, portal)).toEqual({ userinfo: 401, active: false, refresh: undefined });
    expect(await tokenState(p, plainAtWeb, web)).toEqual({ userinfo: 401, active: false, refresh: undefined });
    expect(await tokenState(p, bobs, web)).toEqual({ userinfo: 200, active: true, refresh: { status: 200, error: undefined } });
    expect(await listUserAccess(p.provider, ALICE, OPERATOR)).toMatchObject({ sessions: [], refreshFamilies: [], accessTokens: [] });
  });

  it("tells each client of each session by back-channel logout, awaited, with a logout token it verifies", async () => {
    const delivered = outcome.backChannel.map((d) => `${d.clientId} ${d.sid} ${d.ok}`).sort();
    expect(delivered).toEqual(
      [`demo-web ${familyAtWeb.sid} true`, `demo-portal ${familyAtWeb.sid} true`, `demo-web ${plainAtWeb.sid} true`].sort(),
    );
    // Awaited: the tokens are there as soon as the sign-out returns.
    expect(
      rp
        .client("demo-web")
        .logoutTokens.map((t) => t.claims.sid)
        .sort(),
    ).toEqual([familyAtWeb.sid, plainAtWeb.sid].sort());
    expect(rp.client("demo-portal").logoutTokens.map((t) => t.claims)).toEqual([
      expect.objectContaining({ sub: "E10001", sid: familyAtWeb.sid }),
    ]);
    expect(rp.client("demo-web").refusedLogoutTokens).toEqual([]);
  });

  it("audits every act under one signout_id, with who did it", () => {
    const id = outcome.signoutId;
    expect(eventsOf(events, "user.signed_out")).toEqual([
      { type: "user.signed_out", sub: "E10001", signout_id: id, sessions: 2, refresh_families: 1, access_tokens: 2, ...OPERATOR },
    ]);
    expect(eventsOf(events, "session.ended").filter((e) => e.signout_id === id)).toHaveLength(2);
    expect(eventsOf(events, "session.ended").every((e) => e.reason === "signed_out")).toBe(true);
    expect(eventsOf(events, "token.revoked").map((e) => [e.token_type, e.client_id, e.signout_id])).toEqual(
      expect.arrayContaining([
        ["refresh_token", "demo-web", id],
        ["access_token", "demo-web", id],
        ["access_token", "demo-portal", id],
      ]),
    );
  });

  it("shows the front-channel logout at the browser's next authorize, then goes on to that request", async () => {
    const url = authorizeUrl(p.issuer, { client_id: "demo-web", redirect_uri: web.redirectUri });
    const page = await first.get(url);
    expect(page.status).toBe(200);
    const [frame, ...more] = logoutFrames(page.text);
    expect(more).toEqual([]);
    const hit = new URL(frame!);
    expect(`${hit.origin}${hit.pathname}`).toBe(rp.client("demo-web").frontchannelUri);
    expect(Object.fromEntries(hit.searchParams)).toEqual({ iss: p.issuer, sid: familyAtWeb.sid });
    expect(page.headers.get("content-security-policy")).toContain(`frame-src ${hit.origin}`);
    const continueTo = /<a id="continue" class="button" href="([^"]+)"/.exec(page.text)?.[1];
    expect(attributeValue(continueTo!)).toBe(url);
    expect(first.cookies.has("portcullis_session")).toBe(false);
    // Owed once: the request it goes on to is an ordinary one, the login page.
    const next = await first.follow(await first.get(url));
    expect(logoutFrames(next.text)).toEqual([]);
    expect(next.text).toContain('name="method"');
    expect(eventsOf(events, "logout.delivered").filter((e) => e.channel === "front")).toEqual([
      { type: "logout.delivered", sid: familyAtWeb.sid, client_id: "demo-web", channel: "front", ok: true },
    ]);
  });

  it("shows it at end session as well, when that is where the browser goes next", async () => {
    const page = await second.get(`${p.issuer}/connect/endsession`);
    expect(page.status).toBe(200);
    expect(logoutFrames(page.text).map((src) => new URL(src).searchParams.get("sid"))).toEqual([plainAtWeb.sid]);
    expect(logoutFrames((await second.get(`${p.issuer}/connect/endsession`)).text)).toEqual([]);
  });

  it("ends nothing twice: a second sign-out finds everything ended", async () => {
    const again = await signOutUser(p.provider, p.provider.policies.current(), ALICE, OPERATOR);
    expect(again).toMatchObject({ sessions: [], refreshFamilies: [], accessTokens: [], backChannel: [] });
  });
});
