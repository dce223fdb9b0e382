/**
 * The admin API (docs/admin-api.md) over real HTTP against a provider on the demo configuration, whose
 * demo-security-tool client is allowed the admin scope: who may call it (a client's own token carrying
 * the scope, asked for by name), what it answers, and that every call, refused or not, is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { signInThrough, tokenState, type SigningClient } from "../support/signed-in-user.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";

const WEB: SigningClient = { id: "demo-web", secret: "demo-web-secret", redirectUri: "http://localhost:3001/callback" };
const TOOL = basic("demo-security-tool", "demo-security-tool-secret");

let p: TestProvider;
let events: AuditEvent[];
let adminToken: string;

beforeAll(async () => {
  p = await startTestProvider();
  events = collectAudit(p);
  const answer = await postForm(
    `${p.url}/connect/token`,
    { grant_type: "client_credentials", scope: "portcullis:admin" },
    { authorization: TOOL },
  );
  expect(answer.status, answer.text).toBe(200);
  adminToken = answer.json!.access_token as string;
});
afterAll(async () => {
  await p?.close();
});

const call = (method: "GET" | "POST", path: string, token?: string) =>
  send(`${p.url}/admin${path}`, { method, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
const adminRequests = () => eventsOf(events, "admin.request");

describe("who may call the admin API", () => {
  it("asks for a token without one: 401 with a bare challenge, audited", async () => {
    const answer = await call("GET", "/users/alice/sessions");
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="portcullis"');
    expect(adminRequests().at(-1)).toEqual({ type: "admin.request", operation: "sessions", status: 401, user: "alice" });
  });

  it("refuses a token that is not one of ours: 401 invalid_token", async () => {
    const answer = await call("POST", "/users/alice/sign-out", "not-a-token");
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: "invalid_token" });
    expect(answer.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("refuses a valid token without the admin scope: 403 insufficient_scope, audited with the calling client", async () => {
    const service = await postForm(
      `${p.url}/connect/token`,
      { grant_type: "client_credentials" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    const answer = await call("POST", "/users/alice/sign-out", service.json!.access_token as string);
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ error: "insufficient_scope" });
    expect(answer.headers.get("www-authenticate")).toContain('scope="portcullis:admin"');
    expect(adminRequests().at(-1)).toEqual({
      type: "admin.request",
      operation: "sign_out",
      status: 403,
      client_id: "demo-service",
      user: "alice",
    });
    expect(eventsOf(events, "user.signed_out")).toEqual([]);
  });

  it("never grants the admin scope by default: a client allowed it must ask for it by name", async () => {
    const answer = await postForm(`${p.url}/connect/token`, { grant_type: "client_credentials" }, { authorization: TOOL });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_scope" });
    expect(answer.json!.error_description).toContain("by name");
  });

  it("grants it to no other client", async () => {
    const answer = await postForm(
      `${p.url}/connect/token`,
      { grant_type: "client_credentials", scope: "portcullis:admin" },
      { authorization: basic("demo-service", "demo-service-secret") },
    );
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: "invalid_scope" });
  });
});

describe("what the admin API answers", () => {
  it("names an unknown user, path or method plainly, and a path that does not decode as a client mistake", async () => {
    expect(await call("GET", "/users/mallory/sessions", adminToken)).toMatchObject({ status: 404, json: { error: "not_found" } });
    expect(await call("POST", "/users/mallory/sign-out", adminToken)).toMatchObject({ status: 404, json: { error: "not_found" } });
    expect(await call("GET", "/users/alice", adminToken)).toMatchObject({ status: 404, json: { error: "not_found" } });
    const wrongMethod = await call("POST", "/users/alice/sessions", adminToken);
    expect(wrongMethod).toMatchObject({ status: 405, json: { error: "invalid_request" } });
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    expect((await call("GET", "/users/alice/sign-out", adminToken)).headers.get("allow")).toBe("POST");
    expect((await call("GET", "/users/%E0%A4%A/sessions", adminToken)).status).toBe(400);
    expect(eventsOf(events, "user.signed_out")).toEqual([]);
  });

  it("lists a user's sessions and tokens by login name or sub, then signs the user out everywhere", async () => {
    const signedIn = await signInThrough(new RawBrowser(), p, WEB, "openid profile acme offline_access");
    const listed = await call("GET", "/users/E10001/sessions", adminToken);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers.get("cache-control")).toBe("no-store");
    expect(listed.json).toMatchObject({
      user: { sub: "E10001", username: "alice" },
      sessions: [{ sid: signedIn.sid, clients: ["demo-web"], methods: ["password"], address: "127.0.0.1" }],
      refreshFamilies: [{ clientId: "demo-web", sid: signedIn.sid }],
      accessTokens: [],
    });
    expect(eventsOf(events, "user.sessions_listed").at(-1)).toEqual({
      type: "user.sessions_listed",
      sub: "E10001",
      by: "admin_api",
      client_id: "demo-security-tool",
    });

    const ended = await call("POST", "/users/alice/sign-out", adminToken);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.json).toMatchObject({
      user: { sub: "E10001", username: "alice" },
      sessions: [{ sid: signedIn.sid, clients: ["demo-web"] }],
      refreshFamilies: [{ clientId: "demo-web" }],
    });
    expect(await tokenState(p, signedIn, WEB)).toEqual({ userinfo: 401, active: false, refresh: { status: 400, error: "invalid_grant" } });
    expect(eventsOf(events, "user.signed_out")).toEqual([
      expect.objectContaining({ sub: "E10001", signout_id: ended.json!.signoutId, by: "admin_api", client_id: "demo-security-tool" }),
    ]);
    expect(adminRequests().slice(-2)).toEqual([
      { type: "admin.request", operation: "sessions", status: 200, client_id: "demo-security-tool", user: "E10001" },
      { type: "admin.request", operation: "sign_out", status: 200, client_id: "demo-security-tool", user: "alice" },
    ]);
  });
});
