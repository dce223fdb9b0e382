/**
 * Request logging (DESIGN "Security baseline", "Code conventions"): one line per request with its id,
 * method, path and status; the request id is echoed; and no secret ever reaches the log.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { ACME_API, clientCredentialsToken, INTROSPECT, LEGACY, REVOKE, send, SERVICE, TOKEN } from "./helpers.ts";

/** A generated request id: the process's random prefix (8 base64url characters) and a base-36 counter. */
const GENERATED_ID = /^[A-Za-z0-9_-]{8}-[0-9a-z]+$/;

let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p?.close());

const requestLines = (reqId: string) => p.logs.filter((line) => line.reqId === reqId);

/** Waits for the request's log line (written when the response finishes) and returns every line with its id. */
async function linesFor(reqId: string) {
  await vi.waitFor(() => expect(requestLines(reqId).length).toBeGreaterThan(0), { timeout: 2000 });
  return requestLines(reqId);
}

describe("secrets never reach the log", () => {
  const WRONG_PASSWORD = "hunter2-wrong-password";
  const QUERY_SECRET = "query-secret-7f3a91";
  const COOKIE_SECRET = "cookie-secret-5b2c77";
  const secrets: string[] = [SERVICE.secret, LEGACY.secret, ACME_API.secret, "alice-password", WRONG_PASSWORD, QUERY_SECRET, COOKIE_SECRET];
  const sent: Array<{ id: string; method: string; path: string; status: number }> = [];

  beforeAll(async () => {
    const token = await clientCredentialsToken(p);
    const [, payload, signature] = token.split(".") as [string, string, string];
    const userToken = (
      await postForm(p.url + TOKEN, {
        grant_type: "password",
        client_id: LEGACY.id,
        client_secret: LEGACY.secret,
        username: "alice",
        password: "alice-password",
      })
    ).json!.access_token as string;
    secrets.push(token, payload, signature, userToken, userToken.split(".")[2]!);
    secrets.push(
      basic(SERVICE.id, SERVICE.secret).slice(6),
      basic(ACME_API.id, ACME_API.secret).slice(6),
      basic(LEGACY.id, LEGACY.secret).slice(6),
    );

    const requests: Array<[string, string, RequestInit]> = [
      [
        TOKEN,
        TOKEN,
        {
          method: "POST",
          body: new URLSearchParams({ grant_type: "client_credentials", client_id: SERVICE.id, client_secret: SERVICE.secret }),
        },
      ],
      [
        TOKEN,
        TOKEN,
        {
          method: "POST",
          body: new URLSearchParams({ grant_type: "client_credentials" }),
          headers: { authorization: basic(SERVICE.id, SERVICE.secret) },
        },
      ],
      [
        TOKEN,
        TOKEN,
        {
          method: "POST",
          body: new URLSearchParams({
            grant_type: "password",
            client_id: LEGACY.id,
            client_secret: LEGACY.secret,
            username: "alice",
            password: "alice-password",
          }),
        },
      ],
      [
        TOKEN,
        TOKEN,
        {
          method: "POST",
          body: new URLSearchParams({ grant_type: "password", username: "alice", password: WRONG_PASSWORD }),
          headers: { authorization: basic(LEGACY.id, LEGACY.secret) },
        },
      ],
      [
        INTROSPECT,
        INTROSPECT,
        { method: "POST", body: new URLSearchParams({ token }), headers: { authorization: basic(ACME_API.id, ACME_API.secret) } },
      ],
      [
        REVOKE,
        REVOKE,
        { method: "POST", body: new URLSearchParams({ token: userToken }), headers: { authorization: basic(SERVICE.id, SERVICE.secret) } },
      ],
      [
        `${TOKEN}?client_secret=${QUERY_SECRET}&code=${QUERY_SECRET}`,
        TOKEN,
        { method: "POST", body: new URLSearchParams({ client_id: SERVICE.id, client_secret: SERVICE.secret }) },
      ],
      [`/nowhere?access_token=${token}`, "/nowhere", { headers: { authorization: `Bearer ${token}`, cookie: `session=${COOKIE_SECRET}` } }],
      [TOKEN, TOKEN, { method: "GET", headers: { authorization: `Bearer ${userToken}`, cookie: `session=${COOKIE_SECRET}` } }],
      [
        TOKEN,
        TOKEN,
        {
          method: "POST",
          body: JSON.stringify({ client_secret: SERVICE.secret, password: "alice-password" }),
          headers: { "content-type": "application/json" },
        },
      ],
      [TOKEN, TOKEN, { method: "POST", body: new URLSearchParams({ client_secret: SERVICE.secret, pad: "a".repeat(20_000) }) }],
    ];
    for (const [i, [target, path, init]] of requests.entries()) {
      const id = `secrets-run-${i}`;
      const res = await send(p.url + target, { ...init, headers: { ...(init.headers as Record<string, string>), "x-request-id": id } });
      sent.push({ id, method: init.method ?? "GET", path, status: res.status });
    }
    for (const { id } of sent) await linesFor(id);
  });

  it("exercised success and failure answers", () => {
    expect(sent.map((s) => s.status)).toEqual([200, 200, 200, 400, 200, 200, 400, 404, 405, 400, 413]);
  });

  it("contains none of the client secrets, passwords, tokens, Basic credentials or cookies sent", () => {
    const text = p.logText();
    for (const secret of secrets) expect(text.includes(secret), `log contains ${secret.slice(0, 24)}…`).toBe(false);
  });

  it("writes exactly one line per request with reqId, method, path (no query) and status", async () => {
    for (const { id, method, path, status } of sent) {
      const lines = await linesFor(id);
      expect(lines, id).toHaveLength(1);
      expect(lines[0]).toMatchObject({ reqId: id, method, path, status });
    }
  });
});

describe("request ids", () => {
  it("echoes a well-formed X-Request-Id and logs the request under it", async () => {
    const res = await send(p.url + "/.well-known/openid-configuration", { headers: { "x-request-id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    const lines = await linesFor("abc-123");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/.well-known/openid-configuration", status: 200 });
  });

  it.each([
    ["spaces", "has spaces in it"],
    ["200 characters", "r".repeat(200)],
    ["markup", "<script>alert(1)</script>"],
    ["a newline escape", "abc\\nlevel=60"],
    ["a quote", 'abc"def'],
  ])("replaces an X-Request-Id with %s by a fresh id", async (_name, given) => {
    const res = await send(p.url + "/.well-known/openid-configuration/jwks", { headers: { "x-request-id": given } });
    const echoed = res.headers.get("x-request-id")!;
    expect(echoed).not.toBe(given);
    expect(echoed).toMatch(GENERATED_ID);
    const lines = await linesFor(echoed);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", path: "/.well-known/openid-configuration/jwks", status: 200 });
    expect(p.logText()).not.toContain(given);
  });

  it("gives each request without an X-Request-Id its own fresh id", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await send(p.url + "/.well-known/openid-configuration")).headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(GENERATED_ID);
    expect(new Set(ids).size).toBe(3);
  });
});
