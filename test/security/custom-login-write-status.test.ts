import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrustedAppClient } from "../../src/trusted-app/client/trusted-app-client.ts";
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
  p = await startTestProvider({ edits: { "provider.yaml": { "security.login_requests_per_ip.max": 10_000, "security.max_body_bytes": MAX_BODY_BYTES } } });
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

  const rows: Array<[string, (sid: string) => unknown, number, number]> = [
    ["an empty session_id", () => ({ session_id: "", status: 10, data: "" }), 400, 400],
    ["a missing session_id", () => ({ status: 10, data: "" }), 400, 400],
    ["a session_id that is not a string", () => ({ session_id: 42, status: 10, data: "" }), 400, 400],
    ["status 7", (sid) => ({ session_id: sid, status: 7, data: "" }), 401, 400],
    ['status "10", a string', (sid) => ({ session_id: sid, status: "10", data: "" }), 401, 400],
    ["status 10.5", (sid) => ({ session_id: sid, status: 10.5, data: "" }), 401, 400],
    ["status null", (sid) => ({ session_id: sid, status: null, data: "" }), 401, 400],
    ["a missing status", (sid) => ({ session_id: sid, data: "" }), 401, 400],
    ["status 5 without an auditor", (sid) => ({ session_id: sid, status: 5, data: "" }), 400, 400],
    ["status 5 with a blank auditor", (sid) => ({ session_id: sid, status: 5, data: "", auditor: "  " }), 400, 400],
    ["data that is a number", (sid) => ({ session_id: sid, status: 10, data: 42 }), 400, 400],
    ["data that is an object", (sid) => ({ session_id: sid, status: 10, data: { a: 1 } }), 400, 400],
    ["data one character over max_data_length", (sid) => ({ session_id: sid, status: 10, data: "x".repeat(2049) }), 400, 400],
    ["a JSON array", (sid) => [{ session_id: sid, status: 10, data: "" }], 400, 400],
    ["malformed JSON", (sid) => `{"session_id":"${sid}","status":10,`, 400, 400],
    ["JSON null", () => "null", 400, 400],
  ];
  it.each(rows)("%s: body status %i, HTTP %i, and the session unchanged", async (_name, body, bodyStatus, httpStatus) => {
    const res = await writeStatus(p, token, body(sessionId));
    expect(res.status, res.text).toBe(httpStatus);
    expect(res.json).toEqual({ status: bodyStatus, message: expect.any(String) });
    expect(res.headers.get("cache-control")).toBe("no-store");
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
    expect(await writeStatus(p, token, { session_id: sessionId, status: 10, data })).toMatchObject({ status: 200, json: { status: 200, message: "OK" } });
    expect((await pcLogin(scanned.session)).location!.searchParams.get("state")).toBe(`${data}|`);
  });

  it("logs none of these client mistakes as an error", () => {
    expect(p.logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});

describe("the data, byte for byte", () => {
  const samples = [
    "a|b||c|",
    "|leading bar",
    "ünïcödé 中文 😀 \u00a0",
    `quotes " ' \` and \\ backslash`,
    "new\nlines\r\nand\ttabs",
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
