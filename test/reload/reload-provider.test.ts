/**
 * Reloading a running provider's configuration (src/reload/): a login in progress finishes on the flow
 * version it started on, the next one runs the new; clients, login types and the discovery document
 * follow the swap; a broken edit or a restart-only key is refused, logged with its file and line, and
 * the old policy keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";
import { redeemCode } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { editConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { clientCredentialsToken, DISCOVERY, send } from "../http/helpers.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";

let p: TestProvider;
const audit: AuditEvent[] = [];
beforeAll(async () => {
  p = await startTestProvider();
  p.provider.audit.subscribe((event) => audit.push(event));
});
afterAll(() => p?.close());

const RELOADED_TYPE = {
  flow: "second_factor",
  methods: ["totp"],
  fa: false,
  sso: false,
  login_hint: "required",
  repeat_login_type_at_token: true,
};

describe("a valid edit", () => {
  it("lets a login in progress finish on the old flow version, and runs the next login on the new", async () => {
    const before = p.provider.policies.current();
    const midLogin = new RawBrowser();
    const oldPage = await openLoginPage(midLogin, authorizeUrl(p.issuer));
    expect(oldPage.text).toContain('name="password"');
    expect(oldPage.text).toContain("Demo web app");

    // The default flow loses the password method (so a restarted flow could not take the password
    // posted below), demo-web is renamed, and a login type is added.
    editConfig(p.configDir, "login.yaml", { "default_flow.methods": ["appotp", "qrcode"], "login_types.Reloaded": RELOADED_TYPE });
    editConfig(p.configDir, "clients.yaml", { "clients.0.name": "Demo web app, reloaded" });
    editConfig(p.configDir, "users.yaml", { "users.0.claims.name": "Alice Reloaded" });
    const result = await p.reload();

    expect(result).toMatchObject({ ok: true, errors: [] });
    expect(p.provider.policies.current()).not.toBe(before);
    expect(p.provider.policies.current().hash).toBe(result.policyHash);
    expect(p.provider.policies.current().hash).not.toBe(before.hash);
    expect(p.provider.policies.current().config.clients.clients[0]!.name).toBe("Demo web app, reloaded");
    expect(audit).toContainEqual({ type: "config.reloaded", policy_hash: result.policyHash, ok: true });

    // The login begun before the reload finishes with its password, on the version it started on.
    const finished = await submitPassword(midLogin, oldPage, "alice", "alice-password");
    const code = responseParams(finished).get("code");
    expect(code).toBeTruthy();
    const redeemed = await redeemCode(p, code!, { code_verifier: undefined });
    expect(redeemed.status, redeemed.text).toBe(200);
    // The directory followed the swap: userinfo answers from the new users.yaml.
    const userinfo = await send(`${p.url}/connect/userinfo`, {
      headers: { authorization: `Bearer ${String(redeemed.json!.access_token)}` },
    });
    expect(userinfo.json).toMatchObject({ sub: "E10001", name: "Alice Reloaded" });

    // The next login runs the new default flow (no password method) for the renamed client.
    const nextBrowser = new RawBrowser();
    const next = await nextBrowser.follow(await nextBrowser.get(authorizeUrl(p.issuer)));
    expect(next.status, next.text.slice(0, 300)).toBe(200);
    expect(next.text).toContain("Demo web app, reloaded");
    expect(next.text).not.toContain('value="password"');
    expect(next.text).not.toContain('name="password"');

    // Discovery is served from the new snapshot.
    const discovery = await send(p.url + DISCOVERY);
    expect(discovery.json!.login_types_supported).toContain("Reloaded");
  });
});

describe("a broken edit", () => {
  it("is refused with its file and line logged, and the old policy keeps serving", async () => {
    const serving = p.provider.policies.current();
    editConfig(p.configDir, "clients.yaml", { "clients.0.redirect_uris": "not a list" });
    const result = await p.reload();

    expect(result.ok).toBe(false);
    expect(result.errors.join("\n")).toMatch(/clients\.yaml:\d+:\d+ clients\[0\]\.redirect_uris: /);
    expect(p.provider.policies.current()).toBe(serving);
    const logged = p.logs.find((line) => line.event === "config_reload_error");
    expect(logged).toMatchObject({ level: 50, key: "clients[0].redirect_uris", line: expect.any(Number) });
    expect(String(logged!.file)).toMatch(/clients\.yaml$/);
    expect(String(logged!.msg)).toMatch(/clients\.yaml:\d+:\d+ clients\[0\]\.redirect_uris: /);
    expect(audit.at(-1)).toEqual({ type: "config.reloaded", policy_hash: result.policyHash, ok: false, errors: result.errors.length });
    // Still serving: a token, and the discovery document of the policy that serves.
    expect(await clientCredentialsToken(p)).toBeTruthy();
    expect((await send(p.url + DISCOVERY)).json!.login_types_supported).toContain("Reloaded");
    editConfig(p.configDir, "clients.yaml", { "clients.0.redirect_uris": ["http://localhost:3001/callback"] });
  });

  it("refuses a change to a setting only a restart applies, naming the key", async () => {
    const serving = p.provider.policies.current();
    editConfig(p.configDir, "provider.yaml", { "listen.host": "0.0.0.0" });
    editConfig(p.configDir, "login.yaml", { "methods.totp.digits": 8 });
    const result = await p.reload();

    expect(result.ok).toBe(false);
    expect(result.errors).toContain(
      "provider.yaml listen.host: cannot change without a restart (changed); restart the provider to apply it",
    );
    expect(result.errors).toContain(
      "login.yaml methods.totp.digits: cannot change without a restart (changed); restart the provider to apply it",
    );
    // Logged with the file and key as fields, as a broken edit is.
    const logged = p.logs.filter(
      (line) => line.event === "config_reload_error" && String(line.msg).includes("cannot change without a restart"),
    );
    expect(logged.map((line) => [line.file, line.key])).toEqual(
      expect.arrayContaining([
        ["provider.yaml", "listen.host"],
        ["login.yaml", "methods.totp.digits"],
      ]),
    );
    expect(p.provider.policies.current()).toBe(serving);
  });
});
