import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";
import { pcLogin, scannedSession, scanState, writeStatus } from "../support/custom-login.ts";

/**
 * WriteStatusOperation's error table (docs/custom-login.md §5) row by row, with the exact body status
 * and HTTP status, over real HTTP with the scan's own token; and the data handed to the PC side byte
 * for byte whatever it holds. No refused write changes the session.
 */
let p: TestProvider;
let alice: TrustedAppClient;
const MAX_BODY_BYTES = 16_384;

beforeAll(async () => {
  p = await startTestProvider({
    edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000, "security.max_body_bytes": MAX_BODY_BYTES } },
  });
  alice = await enrolledPhone(p, "E10001");
});
afterAll(() => p.close());

describe("the error table, with the scan's own token", () => {
  let sessionId: string;
  let token: string;
  let scanned: Awaited<ReturnType<typeof scannedSession>>;
  beforeAll(async () => {
    scanned = await scannedSession(p, alice);
    sessionId = scanned.session.sessionId;
    token = scanned.tokens.access_token;
  });

  const rows: Array<[string, number, number, (sid: string) => unknown]> = [
    ["an empty session_id", 400, 400, () => ({ session_id: "", status: 10, data: "" })],
    ["a missing session_id", 400, 400, () => ({ status: 10, data: "" })],
    ["a session_id that is not a string", 400, 400, () => ({ session_id: 42, status: 10, data: "" })],
    ["status 7", 401, 400, (sid) => ({ session_id: sid, status: 7, data: "" })],
    ['status "10", a string', 401, 400, (sid) => ({ session_id: sid, status: "10", data: "" })],
    ["status 10.5", 401, 400, (sid) => ({ session_id: sid, status: 10.5, data: "" })],
    ["status null", 401, 400, (sid) => ({ session_id: sid, status: null, data: "" })],
    ["a missing status", 401, 400, (sid) => ({ session_id: sid, data: "" })],
    ["status 5 without an auditor", 400, 400, (sid) => ({ session_id: sid, status: 5, data: "" })],
    ["status 5 with a blank auditor", 400, 400, (sid) => ({ session_id: sid, status: 5, data: "", auditor: "  " })],
    ["data that is a number", 400, 400, (sid) => ({ session_id: sid, status: 10, data: 42 })],
    ["data that is an object", 400, 400, (sid) => ({ session_id: sid, status: 10, data: { a: 1 } })],
    ["data one character over max_data_length", 400, 400, (sid) => ({ session_id: sid, status: 10, data: "x".repeat(2049) })],
    // Valid JSON (\ud800 escapes), but no URL can carry a lone surrogate unchanged to the PC side.
    ["data with a lone high surrogate", 400, 400, (sid) => ({ session_id: sid, status: 10, data: "\ud800" })],
    ["data with a lone low surrogate", 400, 400, (sid) => ({ session_id: sid, status: 10, data: "a\udc00b" })],
    ["an auditor with a lone surrogate", 400, 400, (sid) => ({ session_id: sid, status: 5, data: "", auditor: "E\ud800" })],
    ["a JSON array", 400, 400, (sid) => [{ session_id: sid, status: 10, data: "" }]],
    ["malformed JSON", 400, 400, (sid) => `{"session_id":"${sid}","status":10,`],
    ["JSON null", 400, 400, () => "null"],
    // JSON.parse keeps the last of two members; a proxy or an auditor may read the first: one body, two meanings.
    ["status -10 then status 10", 400, 400, (sid) => `{"session_id":"${sid}","status":-10,"status":10,"data":""}`],
    ["status 10 then an escaped status -10", 400, 400, (sid) => `{"session_id":"${sid}","status":10,"st\\u0061tus":-10,"data":""}`],
    ["session_id twice", 400, 400, (sid) => `{"session_id":"other","session_id":"${sid}","status":10,"data":""}`],
    ["a member twice in a nested object", 400, 400, (sid) => `{"session_id":"${sid}","status":10,"data":"","extra":[{"a":1,"a":2}]}`],
  ];
  it.each(rows)("%s: body status %i, HTTP %i, and the session unchanged", async (_name, bodyStatus, httpStatus, body) => {
    const res = await writeStatus(p, token, body(sessionId));
    expect(res.status, res.text).toBe(httpStatus);
    expect(res.json).toEqual({ status: bodyStatus, message: expect.any(String) });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await scanState(scanned.session)).toBe("scanned");
  });

  it("a member sent twice is refused by name, and the scan is not approved", async () => {
    const res = await writeStatus(p, token, `{"session_id":"${sessionId}","status":-10,"status":10,"data":""}`);
    expect(res.json).toEqual({ status: 400, message: "the body has the member 'status' twice in one object" });
    expect(await scanState(scanned.session)).toBe("scanned");
  });

  it("a body that is not application/json is 400, whatever it holds", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const res = await writeStatus(p, token, { session_id: sessionId, status: 10, data: "" }, type);
      expect(res.status, type).toBe(400);
      expect(res.json).toMatchObject({ status: 400 });
    }
    expect(await scanState(scanned.session)).toBe("scanned");
  });

  it("an oversized body is refused without a 5xx, as JSON", async () => {
    const res = await writeStatus(p, token, { session_id: sessionId, status: 10, data: "x".repeat(MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ status: 400 });
    expect(await scanState(scanned.session)).toBe("scanned");
  });

  it("a GET is 405 with Allow: POST, as JSON", async () => {
    const res = await send(`${p.url}/Acme/CustomLogin/WriteStatusOperation`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.json).toMatchObject({ status: 400 });
  });

  it("data of exactly max_data_length is accepted and reaches the PC side whole", async () => {
    const data = "é|".repeat(1024);
    expect(data).toHaveLength(2048);
    expect(await writeStatus(p, token, { session_id: sessionId, status: 10, data })).toMatchObject({
      status: 200,
      json: { status: 200, message: "OK" },
    });
    expect((await pcLogin(scanned.session)).location!.searchParams.get("state")).toBe(`${data}|`);
  });

  it("logs none of these client mistakes as an error", () => {
    expect(p.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});

describe("a hammering mobile page", () => {
  it("gets 200 or 409 (body 400, try again) for 40 concurrent writes, never a 5xx", async () => {
    const { session, tokens } = await scannedSession(p, alice);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 5, data: "", auditor: `E${i}` }),
      ),
    );
    for (const answer of answers)
      expect([
        { http: 200, body: 200 },
        { http: 409, body: 400 },
      ]).toContainEqual({ http: answer.status, body: answer.json?.status });
    expect(await scanState(session)).toBe("auditing");
  });
});

describe("the data, byte for byte", () => {
  const samples = [
    "a|b||c|",
    "|leading bar",
    "ünïcödé 中文 😀 \u00a0",
    `quotes " ' \` and \\ backslash`,
    "new\nlines\r\nand\ttabs",
    "\u0000 NUL and \u007f DEL",
    "</script><script>alert(1)</script>",
    "%20%7C + & = ? # ; /",
    "",
  ];
  it.each(samples.map((s) => [JSON.stringify(s), s]))("%s comes back as state=<data>|<PCState>", async (_name, data) => {
    const { session, tokens } = await scannedSession(p, alice, { PCState: "pc-7" });
    expect((await writeStatus(p, tokens.access_token, { session_id: session.sessionId, status: 10, data })).status).toBe(200);
    const login = await pcLogin(session);
    expect(login.location!.searchParams.get("state")).toBe(`${data}|pc-7`);
  });
});
