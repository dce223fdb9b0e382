/**
 * The audit trail never holds a secret: real logins and token grants over HTTP, then every line of the
 * audit file is searched for every secret those requests used or produced (passwords, the code, access,
 * ID and refresh tokens, client secrets, session and interaction cookies). And structurally: every
 * field of every line is one of the id and name fields the event types declare.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { authorizeUrl, openLoginPage, submitPassword } from "../support/browser-login.ts";
import { refresh, WEB } from "../support/code-grant.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { eventually } from "../support/relying-party.ts";
import { ALICE, loginAndRedeem } from "../support/audited-login.ts";

/** Every field an audit line may have: ids, configuration names, state names, message keys, flags. */
const ALLOWED_FIELDS = new Set([
  "time",
  "type",
  "flow_id",
  "machine_hash",
  "path",
  "login_id",
  "client_id",
  "sub",
  "amr",
  "acr",
  "reason",
  "method",
  "grant",
  "jti",
  "sid",
  "family",
  "id_token",
  "refresh_token",
  "token_type",
  "change",
  "channel",
  "ok",
  "policy_hash",
  "errors",
  "kid",
  // The first 8 hex digits of a client secret's SHA-256 in clients.yaml: names which secret of a rotation was used.
  "secret_fingerprint",
  "status",
  "by",
]);

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(async () => {
  await p?.close();
});

it("writes no password, code, token, client secret or cookie to the audit file", async () => {
  const secrets = new Set<string>([
    ALICE.password,
    "a-wrong-password-typed",
    "demo-web-secret",
    "demo-legacy-secret",
    "demo-service-secret",
  ]);

  // A wrong password, then a login, its code exchange, a refresh and a revocation.
  const wrong = new RawBrowser();
  await submitPassword(wrong, await openLoginPage(wrong, authorizeUrl(p.issuer)), ALICE.username, "a-wrong-password-typed");
  const login = await loginAndRedeem(p);
  secrets.add(login.code).add(login.tokens.access_token).add(login.tokens.id_token).add(login.tokens.refresh_token!);
  for (const cookie of [...login.browser.cookies.values(), ...wrong.cookies.values()]) secrets.add(cookie.value);
  const rotated = await refresh(p, login.tokens.refresh_token!, {}, WEB);
  expect(rotated.status, rotated.text).toBe(200);
  secrets.add(String(rotated.json!.access_token)).add(String(rotated.json!.refresh_token)).add(String(rotated.json!.id_token));
  await postForm(
    `${p.url}/connect/revocation`,
    { token: String(rotated.json!.refresh_token) },
    { authorization: basic(WEB.id, WEB.secret) },
  );

  // The password grant and client_credentials; one password grant with the password typed as the user name.
  await postForm(
    `${p.url}/connect/token`,
    { grant_type: "password", username: "a-password-typed-as-user", password: "x", scope: "profile" },
    { authorization: basic("demo-legacy", "demo-legacy-secret") },
  );
  secrets.add("a-password-typed-as-user");
  // A wrong client secret, and a secret typed where the client id goes.
  await postForm(
    `${p.url}/connect/token`,
    { grant_type: "client_credentials" },
    { authorization: basic("demo-service", "a-wrong-client-secret") },
  );
  await postForm(
    `${p.url}/connect/token`,
    { grant_type: "client_credentials" },
    { authorization: basic("a-secret-typed-as-client-id", "x") },
  );
  secrets.add("a-wrong-client-secret").add("a-secret-typed-as-client-id");
  const pw = await postForm(
    `${p.url}/connect/token`,
    { grant_type: "password", username: ALICE.username, password: ALICE.password, scope: "profile" },
    { authorization: basic("demo-legacy", "demo-legacy-secret") },
  );
  const cc = await postForm(
    `${p.url}/connect/token`,
    { grant_type: "client_credentials" },
    { authorization: basic("demo-service", "demo-service-secret") },
  );
  secrets.add(String(pw.json!.access_token)).add(String(cc.json!.access_token));

  const file = join(p.provider.settings.data_dir, "audit.log");
  // Complete lines only: a write may be under way.
  const lines = () => (existsSync(file) ? readFileSync(file, "utf8").split("\n").slice(0, -1) : []);
  // login.failed, factor.failed, factor.passed, login.succeeded, session.started, 2 token.issued (code, refresh), token.revoked,
  // login.failed and login.succeeded (password grants), 2 client.authentication_failed, 2 token.issued (password, client_credentials),
  // and a client.authenticated for each of the 6 requests whose client proved itself.
  await eventually(() => lines().length >= 20, "the audit lines");
  const text = readFileSync(file, "utf8");
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(8);
    expect(text.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the audit file`).toBe(false);
  }
  // A JWT's signature-less parts would be as bad as the token: no line holds a JWT-shaped string either.
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);

  const types = new Set<string>();
  for (const line of lines()) {
    const event = JSON.parse(line) as Record<string, unknown>;
    types.add(String(event.type));
    for (const field of Object.keys(event)) expect(ALLOWED_FIELDS.has(field), `field ${field} of ${String(event.type)}`).toBe(true);
  }
  // key.rotated: the provider generated its first signing key at start.
  expect([...types].sort()).toEqual([
    "client.authenticated",
    "client.authentication_failed",
    "factor.failed",
    "factor.passed",
    "key.rotated",
    "login.failed",
    "login.succeeded",
    "session.started",
    "token.issued",
    "token.revoked",
  ]);
});
