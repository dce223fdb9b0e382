import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginContext } from "../../../src/plugin-contract/factor-plugin.ts";
import type { Enrollment } from "../../../src/enrollments/enrollments.ts";
import type { Interaction } from "../../../src/runtime/interaction.ts";
import { startRegistration, verifyRegistration } from "../../../flows/methods/fido/registration.ts";
import { relyingParty, type FidoSettings } from "../../../flows/methods/fido/fido-settings.ts";
import type { FidoEnrollment } from "../../../flows/methods/fido/fido-enrollment-record.ts";
import { FidoChallenges } from "../../../flows/methods/fido/fido-challenges.ts";
import { responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { comparablePage, extraUsers, openMethodPage, signInWithPassword, startEnrollment, submitStep } from "../../support/method-pages.ts";
import { RawBrowser, type Answer } from "../../support/raw-browser.ts";
import {
  SoftwareAuthenticator,
  type CreationOptionsJson,
  type Forgery,
  type RequestOptionsJson,
} from "../../support/software-authenticator.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/**
 * FIDO2 over HTTP with a software authenticator (test/support/software-authenticator.ts), which can
 * forge what a browser never sends: the pages' forms carry the credential JSON, so every check the
 * provider makes is attacked through the same door a browser uses. The test provider's issuer is
 * http://127.0.0.1:<port>, so the RP id defaults to 127.0.0.1 (fine server-side; browsers refuse
 * IP addresses, which is why the Chromium test runs on localhost).
 */
const USERS = ["carol", "dave", "erin", "frank", "gina", "hank", "ivan"] as const;

let p: TestProvider;
let context: PluginContext<FidoSettings>;
beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "users.yaml": extraUsers(USERS),
      "login.yaml": { "default_flow.methods": ["fido", "password"] },
    },
  });
  context = p.provider.methods.get("fido")!.context as unknown as PluginContext<FidoSettings>;
});
afterAll(() => p.close());

const subOf = (username: string) => p.provider.policies.current().config.users.users.find((u) => u.username === username)!.sub;
const handleOf = (page: Answer) => /data-handle="([^"]*)"/.exec(page.text)?.[1];
const REFUSED = "The security key or passkey was not accepted.";

/** What the page's script fetches: the pending ceremony's options. */
async function optionsOf(page: Answer): Promise<{ status: number; ceremony?: string; options?: CreationOptionsJson & RequestOptionsJson }> {
  const res = await fetch(`${p.url}/methods/fido/options`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ handle: handleOf(page) }),
  });
  return res.ok ? { status: res.status, ...((await res.json()) as object) } : { status: res.status };
}

/** Registers a new credential of `authenticator` for `username` through the plugin, as the enrollment page would. */
async function registerFor(username: string, authenticator: SoftwareAuthenticator): Promise<void> {
  const deps = { context, rp: relyingParty(context.settings, p.issuer) };
  const handle = await startRegistration(deps, subOf(username));
  const pending = await new FidoChallenges(context).find(handle);
  const credential = authenticator.register(pending!.options as CreationOptionsJson);
  expect(await verifyRegistration(deps, subOf(username), handle, JSON.stringify(credential))).toBe(true);
}

/** A fresh browser on `username`'s FIDO2 login page. */
async function loginPage(username: string): Promise<{ browser: RawBrowser; page: Answer }> {
  const browser = new RawBrowser();
  const page = await openMethodPage(browser, p.issuer, "fido", username);
  expect(page.text).toContain('name="event" value="SUBMIT_ASSERTION"');
  return { browser, page };
}

/** Answers the page's challenge with `authenticator` (forging what `forge` says); the provider's answer. */
async function answer(browser: RawBrowser, page: Answer, authenticator: SoftwareAuthenticator, forge: Forgery = {}): Promise<Answer> {
  const { options } = await optionsOf(page);
  return submitStep(browser, page, { event: "SUBMIT_ASSERTION", credential: JSON.stringify(authenticator.authenticate(options!, forge)) });
}

const recordOf = async (username: string) =>
  (await p.provider.enrollments.get("fido", subOf(username))) as Enrollment<FidoEnrollment> | undefined;

describe("FIDO2 registration", () => {
  it("registers a security key from the account page, keeping its transports, and logs in with it: amr [fido]", async () => {
    const browser = new RawBrowser();
    await signInWithPassword(browser, p.issuer, "alice");
    const page = await startEnrollment(browser, p.url, "fido");
    expect(page.text).toMatch(/<script nonce="[A-Za-z0-9_-]{16,}" src="\/methods\/fido\/fido\.js"><\/script>/);
    const { ceremony, options } = await optionsOf(page);
    expect(ceremony).toBe("registration");
    expect(options).toMatchObject({
      rp: { id: "127.0.0.1", name: "Portcullis" },
      user: { name: "alice", displayName: "Alice Chen" },
      attestation: "none",
    });
    expect(options!.user.id).not.toContain("E10001");

    const key = new SoftwareAuthenticator(p.url, { transports: ["usb", "nfc"] });
    const done = await submitStep(browser, page, { event: "SUBMIT_CREDENTIAL", credential: JSON.stringify(key.register(options!)) });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${p.url}/account?enrolled=fido`);
    const record = await recordOf("alice");
    expect(record!.data.credentials).toEqual([
      expect.objectContaining({ id: key.credentials[0]!.id, transports: ["usb", "nfc"], counter: 0 }),
    ]);
    expect(record!.data.userHandle).toBe(options!.user.id);

    const login = await loginPage("alice");
    const { options: request } = await optionsOf(login.page);
    expect(request!.allowCredentials).toEqual([{ id: key.credentials[0]!.id, type: "public-key", transports: ["usb", "nfc"] }]);
    const signedIn = await answer(login.browser, login.page, key);
    const tokens = await redeemCode(p, responseParams(signedIn).get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["fido"], acr: "1fa" });
    expect((await recordOf("alice"))!.data.credentials[0]).toMatchObject({ counter: 1, lastUsedAt: expect.any(Number) });
  });

  it("keeps several credentials per user, each of which logs in, and excludes them from the next registration", async () => {
    const first = new SoftwareAuthenticator(p.url);
    const second = new SoftwareAuthenticator(p.url, { transports: ["internal"] });
    await registerFor("carol", first);
    await registerFor("carol", second);
    expect((await recordOf("carol"))!.data.credentials.map((c) => c.transports)).toEqual([["usb"], ["internal"]]);
    for (const key of [second, first]) {
      const { browser, page } = await loginPage("carol");
      expect(responseParams(await answer(browser, page, key)).get("code")).toBeTruthy();
    }
    const handle = await startRegistration({ context, rp: relyingParty(context.settings, p.issuer) }, subOf("carol"));
    const pending = await new FidoChallenges(context).find(handle);
    expect((pending!.options as { excludeCredentials: { id: string }[] }).excludeCredentials.map((c) => c.id)).toEqual([
      first.credentials[0]!.id,
      second.credentials[0]!.id,
    ]);
  });

  it("refuses a registration from a foreign origin, for another RP id, for another challenge, or already registered", async () => {
    const deps = { context, rp: relyingParty(context.settings, p.issuer) };
    const sub = subOf("dave");
    const attempt = async (forge: Forgery, key = new SoftwareAuthenticator(p.url)) => {
      const handle = await startRegistration(deps, sub);
      const pending = await new FidoChallenges(context).find(handle);
      return verifyRegistration(deps, sub, handle, JSON.stringify(key.register(pending!.options as CreationOptionsJson, forge)));
    };
    expect(await attempt({ origin: "http://evil.example" })).toBe(false);
    expect(await attempt({ rpId: "evil.example" })).toBe(false);
    expect(await attempt({ challenge: "c3RhbGUtY2hhbGxlbmdl" })).toBe(false);
    expect(await attempt({ type: "webauthn.get" })).toBe(false);
    expect(await recordOf("dave")).toBeUndefined();
    // The same credential twice: the second is refused (a browser would have excluded it).
    const key = new SoftwareAuthenticator(p.url);
    const handle = await startRegistration(deps, sub);
    const credential = key.register((await new FidoChallenges(context).find(handle))!.options as CreationOptionsJson);
    expect(await verifyRegistration(deps, sub, handle, JSON.stringify(credential))).toBe(true);
    const again = await startRegistration(deps, sub);
    const replayed = { ...credential };
    expect(await verifyRegistration(deps, sub, again, JSON.stringify(replayed))).toBe(false);
  });

  it("keeps only the handle in the persisted interaction, and the handle stops working once answered", async () => {
    const { browser, page } = await loginPage("alice");
    const id = new URL(page.url).pathname.split("/").pop()!;
    const stored = JSON.stringify(await p.provider.store.namespace<Interaction>("interactions").get(id));
    const { options } = await optionsOf(page);
    expect(stored).toContain(handleOf(page)!);
    expect(stored).not.toContain(options!.challenge);
    await submitStep(browser, page, { event: "SUBMIT_ASSERTION", credential: "{}" });
    expect((await optionsOf(page)).status).toBe(404);
  });
});

describe("FIDO2 login refuses", () => {
  let key: SoftwareAuthenticator;
  beforeAll(async () => {
    key = new SoftwareAuthenticator(p.url);
    await registerFor("erin", key);
  });

  it.each<[string, Forgery]>([
    ["an assertion made for a foreign origin", { origin: "http://evil.example" }],
    ["an assertion made for a foreign origin on the same host", { origin: "http://127.0.0.1:1" }],
    ["an assertion for another RP id", { rpId: "evil.example" }],
    ["an assertion over another challenge", { challenge: "c3RhbGUtY2hhbGxlbmdl" }],
    ["a registration's client data", { type: "webauthn.create" }],
    ["a signature by another key", { signingKey: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey }],
  ])("%s", async (_, forge) => {
    const { browser, page } = await loginPage("erin");
    const refused = await answer(browser, page, key, forge);
    expect(refused.status).toBe(200);
    expect(refused.text).toContain(REFUSED);
    // A refusal uses up the challenge: the next page has a new one, and the genuine key still works.
    expect(handleOf(refused)).not.toBe(handleOf(page));
    expect(responseParams(await answer(browser, refused, key)).get("code")).toBeTruthy();
  });

  it("a credential with a member twice, though the last of each is genuine (one credential, one reading)", async () => {
    const { browser, page } = await loginPage("erin");
    const { options } = await optionsOf(page);
    const genuine = JSON.stringify(key.authenticate(options!));
    const refused = await submitStep(browser, page, {
      event: "SUBMIT_ASSERTION",
      credential: `{"id":"${"A".repeat(43)}",${genuine.slice(1)}`,
    });
    expect(refused.text).toContain(REFUSED);
    expect(responseParams(await answer(browser, refused, key)).get("code")).toBeTruthy();
  });

  it("a replayed assertion: once answered, a challenge accepts nothing, and another login's challenge does not match", async () => {
    const first = await loginPage("erin");
    const { options } = await optionsOf(first.page);
    const assertion = JSON.stringify(key.authenticate(options!));
    const cookies = new Map(first.browser.cookies);
    expect(
      responseParams(await submitStep(first.browser, first.page, { event: "SUBMIT_ASSERTION", credential: assertion })).get("code"),
    ).toBeTruthy();
    // The same answer to a new login (a new challenge).
    const second = await loginPage("erin");
    const replayed = await submitStep(second.browser, second.page, { event: "SUBMIT_ASSERTION", credential: assertion });
    expect(replayed.text).toContain(REFUSED);
    // And the first challenge, taken, answers no one (the interaction is finished; its handle shows nothing).
    for (const [k, v] of cookies) first.browser.cookies.set(k, v);
    expect((await optionsOf(first.page)).status).toBe(404);
  });

  it("one of concurrent submissions of one valid assertion", async () => {
    const { browser, page } = await loginPage("erin");
    const { options } = await optionsOf(page);
    const assertion = JSON.stringify(key.authenticate(options!));
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => submitStep(browser, page, { event: "SUBMIT_ASSERTION", credential: assertion })),
    );
    expect(answers.filter((a) => a.status === 303 && a.location?.includes("code="))).toHaveLength(1);
  });

  it("a signature counter that did not increase (a cloned authenticator), and zero once the key counted", async () => {
    const stored = (await recordOf("erin"))!.data.credentials[0]!.counter;
    expect(stored).toBeGreaterThan(0);
    for (const signCount of [stored, stored - 1, 0]) {
      const { browser, page } = await loginPage("erin");
      expect((await answer(browser, page, key, { signCount })).text, `counter ${signCount}`).toContain(REFUSED);
    }
    expect((await recordOf("erin"))!.data.credentials[0]!.counter).toBe(stored);
    const { browser, page } = await loginPage("erin");
    expect(responseParams(await answer(browser, page, key, { signCount: stored + 1 })).get("code")).toBeTruthy();
    expect((await recordOf("erin"))!.data.credentials[0]!.counter).toBe(stored + 1);
  });

  it("two logins at the same moment carrying the same counter (a cloned key racing the original): one passes", async () => {
    const stored = (await recordOf("erin"))!.data.credentials[0]!.counter;
    const logins = await Promise.all([loginPage("erin"), loginPage("erin"), loginPage("erin")]);
    const answers = await Promise.all(logins.map(({ browser, page }) => answer(browser, page, key, { signCount: stored + 5 })));
    expect(answers.filter((a) => a.status === 303 && a.location?.includes("code="))).toHaveLength(1);
    expect((await recordOf("erin"))!.data.credentials[0]!.counter).toBe(stored + 5);
  });

  it("another user's credential, and any assertion for a user without credentials or an unknown name", async () => {
    const franks = new SoftwareAuthenticator(p.url);
    await registerFor("frank", franks);
    const { browser, page } = await loginPage("erin");
    expect(
      (
        await submitStep(browser, page, {
          event: "SUBMIT_ASSERTION",
          credential: JSON.stringify(
            franks.authenticate({ challenge: (await optionsOf(page)).options!.challenge }, {}, franks.credentials[0]),
          ),
        })
      ).text,
    ).toContain(REFUSED);
    for (const username of ["gina", "nobody-here"]) {
      const login = await loginPage(username);
      const { options } = await optionsOf(login.page);
      const forged = key.authenticate({ challenge: options!.challenge }, {}, key.credentials[0]);
      expect(
        (await submitStep(login.browser, login.page, { event: "SUBMIT_ASSERTION", credential: JSON.stringify(forged) })).text,
      ).toContain(REFUSED);
    }
  });

  it("malformed credentials, without a 500", async () => {
    for (const credential of [
      "",
      "not json",
      "[]",
      "null",
      '{"id":"x"}',
      '{"id":"x","response":{}}',
      JSON.stringify({ id: "x".repeat(5000), rawId: "y", response: { clientDataJSON: "%%%" } }),
    ]) {
      const { browser, page } = await loginPage("erin");
      const refused = await submitStep(browser, page, { event: "SUBMIT_ASSERTION", credential });
      expect(refused.status, credential).toBe(200);
      expect(refused.text, credential).toContain(REFUSED);
    }
  });
});

describe("FIDO2 login pages", () => {
  it("show an unknown name, a user without a key and a user with one the same page and the same shape of options", async () => {
    await registerFor("hank", new SoftwareAuthenticator(p.url));
    const pages = await Promise.all(["hank", "gina", "nobody-here"].map(async (username) => (await loginPage(username)).page));
    const [hank, gina, nobody] = pages.map((page) => comparablePage(page.text));
    expect(gina).toBe(hank);
    expect(nobody).toBe(hank);
    // Alike but for the challenge, the credential id and its transports (a common list per user).
    const shapes = await Promise.all(
      pages.map(async (page) => {
        const { options } = await optionsOf(page);
        return {
          ...options,
          challenge: options!.challenge.length,
          allowCredentials: options!.allowCredentials!.map((c) => ({ ...c, id: c.id.length, transports: expect.any(Array) })),
        };
      }),
    );
    expect(shapes[0]).toMatchObject({ challenge: 43, allowCredentials: [{ id: 43, type: "public-key" }] });
    expect(shapes[1]).toEqual(shapes[0]);
    expect(shapes[2]).toEqual(shapes[0]);
    // The decoy list is stable: asking again gives the same id (a real key's id does not change either).
    const again = await optionsOf((await loginPage("nobody-here")).page);
    expect(again.options!.allowCredentials).toEqual((await optionsOf(pages[2]!)).options!.allowCredentials);
  });

  it("count every attempt, and answer a locked account exactly like a refused key", async () => {
    const key = new SoftwareAuthenticator(p.url);
    await registerFor("ivan", key);
    const limit = p.provider.settings.security.password_attempts.max_failures;
    const refusals: Answer[] = [];
    for (let i = 0; i < limit; i++) {
      const { browser, page } = await loginPage("ivan");
      refusals.push(await answer(browser, page, key, { origin: "http://evil.example" }));
    }
    expect(await context.attempts.count(subOf("ivan"))).toBe(limit);
    const { browser, page } = await loginPage("ivan");
    const locked = await answer(browser, page, key);
    expect(locked.status).toBe(refusals[0]!.status);
    expect(comparablePage(locked.text)).toBe(comparablePage(refusals[0]!.text));
  });

  it("refuse a body with the handle twice (400 invalid_request) without answering the options, which the plain body then gets", async () => {
    const { page } = await loginPage("gina");
    const body = `{"handle":"unknown","handle":"${handleOf(page)}"}`;
    const twice = await fetch(`${p.url}/methods/fido/options`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({
      error: "invalid_request",
      error_description: "the body has the member 'handle' twice in one object",
    });
    expect(await optionsOf(page)).toMatchObject({ status: 200, ceremony: "authentication" });
  });

  it("serve the page script as JavaScript, and answer 404 for unknown or malformed handles", async () => {
    const script = await fetch(`${p.url}/methods/fido/fido.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("navigator.credentials.get");
    for (const body of ['{"handle":"unknown"}', '{"handle":7}', "{}", "[]"]) {
      const res = await fetch(`${p.url}/methods/fido/options`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(res.status, body).toBe(404);
    }
  });
});
