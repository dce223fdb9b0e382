/**
 * POST /connect/token error answers (RFC 6749 §5.2, DESIGN "Decisions where the spec is silent"):
 * exact status, error code and headers, over real HTTP.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { appendTo, clientEntry, expectNoInternals, expectOAuthError, send, SERVICE, TOKEN, type FormResponse } from "./helpers.ts";

// A secret with every character RFC 6749 §2.3.1 makes a Basic client encode.
const SPECIAL = { id: "special.client~1", secret: "s:e%cr+et value%2B:" } as const;
const FORM_TYPE = "application/x-www-form-urlencoded";
const CC = { grant_type: "client_credentials", client_id: SERVICE.id, client_secret: SERVICE.secret };

let p: TestProvider;
let url: string;

beforeAll(async () => {
  p = await startTestProvider({
    edits: { "clients.yaml": appendTo("clients", [clientEntry(SPECIAL.id, SPECIAL.secret, ["client_credentials"], ["acme"])]) },
  });
  url = p.url + TOKEN;
});
afterAll(() => p?.close());

/** application/x-www-form-urlencoded as a browser form encodes it: space → "+". */
const formEncode = (s: string) => new URLSearchParams({ s }).toString().slice(2);
const rawBasic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const form = (...pairs: string[]) => pairs.join("&");
const cc = form("grant_type=client_credentials", `client_id=${SERVICE.id}`, `client_secret=${SERVICE.secret}`);

describe("client authentication", () => {
  it("answers an unknown client with 401 invalid_client and no challenge when Basic was not used", async () => {
    const res = await postForm(url, { ...CC, client_id: "no-such-client" });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  it("answers an unknown client sent with Basic with 401 invalid_client and a Basic challenge", async () => {
    const res = await postForm(url, { grant_type: "client_credentials" }, { authorization: basic("no-such-client", "x") });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("answers a wrong secret in the body with 401 invalid_client and no challenge", async () => {
    const res = await postForm(url, { ...CC, client_secret: "wrong" });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  it("answers a wrong secret sent with Basic with 401 invalid_client and a Basic challenge", async () => {
    const res = await postForm(url, { grant_type: "client_credentials" }, { authorization: basic(SERVICE.id, "wrong") });
    expectOAuthError(res, 401, "invalid_client");
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("answers a request without client_id with 401 invalid_client", async () => {
    expectOAuthError(await postForm(url, { grant_type: "client_credentials", client_secret: SERVICE.secret }), 401, "invalid_client");
  });

  it("answers a Basic header whose parts are not url-encoded with 401 invalid_client", async () => {
    const res = await postForm(url, { grant_type: "client_credentials" }, { authorization: rawBasic(SPECIAL.id, SPECIAL.secret) });
    expectOAuthError(res, 401, "invalid_client");
  });

  it("rejects Basic together with client_secret in the body as invalid_request", async () => {
    const res = await postForm(
      url,
      { grant_type: "client_credentials", client_secret: SERVICE.secret },
      { authorization: basic(SERVICE.id, SERVICE.secret) },
    );
    expectOAuthError(res, 400, "invalid_request");
  });

  it("rejects a body client_id that differs from the Basic client as invalid_request", async () => {
    const res = await postForm(
      url,
      { grant_type: "client_credentials", client_id: "demo-legacy" },
      { authorization: basic(SERVICE.id, SERVICE.secret) },
    );
    expectOAuthError(res, 400, "invalid_request");
  });
});

describe("Basic credentials are decoded per RFC 6749 §2.3.1", () => {
  it("accepts id and secret percent-encoded (encodeURIComponent)", async () => {
    const res = await postForm(url, { grant_type: "client_credentials" }, { authorization: basic(SPECIAL.id, SPECIAL.secret) });
    expect(res.status, res.text).toBe(200);
  });

  it("accepts id and secret form-urlencoded, with a space sent as +", async () => {
    const authorization = rawBasic(formEncode(SPECIAL.id), formEncode(SPECIAL.secret));
    expect(formEncode(SPECIAL.secret)).toContain("+");
    const res = await postForm(url, { grant_type: "client_credentials" }, { authorization });
    expect(res.status, res.text).toBe(200);
  });

  it("accepts Basic followed by a tab or several spaces (RFC 7617 whitespace)", async () => {
    for (const gap of ["\t", "   "]) {
      const token = Buffer.from(`${SERVICE.id}:${SERVICE.secret}`).toString("base64");
      const res = await postForm(url, { grant_type: "client_credentials" }, { authorization: `Basic${gap}${token}` });
      expect(res.status, res.text).toBe(200);
    }
  });

  it("accepts the same secret with client_secret_post", async () => {
    const res = await postForm(url, { grant_type: "client_credentials", client_id: SPECIAL.id, client_secret: SPECIAL.secret });
    expect(res.status, res.text).toBe(200);
  });
});

describe("grant type", () => {
  it("answers an unknown grant_type with 400 unsupported_grant_type", async () => {
    expectOAuthError(await postForm(url, { ...CC, grant_type: "urn:example:magic" }), 400, "unsupported_grant_type");
  });

  it("answers a missing grant_type with 400 invalid_request", async () => {
    const { grant_type: _omitted, ...rest } = CC;
    expectOAuthError(await postForm(url, rest), 400, "invalid_request");
  });

  it("answers a grant the client may not use with 400 unauthorized_client", async () => {
    const res = await postForm(url, { ...CC, grant_type: "password", username: "alice", password: "alice-password" });
    expectOAuthError(res, 400, "unauthorized_client");
  });
});

describe("request syntax", () => {
  it.each([
    ["grant_type", form(cc, "grant_type=client_credentials")],
    ["client_id", form(cc, `client_id=${SERVICE.id}`)],
    ["client_secret", form(cc, `client_secret=${SERVICE.secret}`)],
    ["scope", form(cc, "scope=acme", "scope=acme")],
  ])("rejects a repeated %s as invalid_request", async (_name, body) => {
    expectOAuthError(await postForm(url, body), 400, "invalid_request");
  });

  it.each([
    ["application/json", JSON.stringify(CC)],
    ["text/plain", cc],
    ["multipart/form-data; boundary=x", cc],
  ])("rejects a %s body as invalid_request", async (type, body) => {
    expectOAuthError(await postForm(url, body, { "content-type": type }), 400, "invalid_request");
  });

  it("rejects a body without a content type as invalid_request", async () => {
    const res = await send(url, { method: "POST", body: new TextEncoder().encode(cc) });
    expectOAuthError(res, 400, "invalid_request");
  });

  it("accepts a form content type with a charset parameter", async () => {
    const res = await postForm(url, cc, { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" });
    expect(res.status, res.text).toBe(200);
  });

  it("accepts a parameter of exactly the maximum length (4096)", async () => {
    const res = await postForm(url, form(cc, `padding=${"a".repeat(4096)}`));
    expect(res.status, res.text).toBe(200);
  });

  it("rejects a parameter one character over the maximum length as invalid_request", async () => {
    expectOAuthError(await postForm(url, form(cc, `padding=${"a".repeat(4097)}`)), 400, "invalid_request");
  });

  it.each([
    ["just over 16 KiB", 16 * 1024 + 1],
    ["2 MiB", 2 * 1024 * 1024],
  ])("refuses a body of %s with 413 and a JSON error", async (_name, size) => {
    const res = await postForm(url, form(cc, `padding=${"a".repeat(size)}`));
    expectOAuthError(res, 413, "invalid_request");
  });

  it("refuses a gzip body that inflates past the limit with 413", async () => {
    const bomb = gzipSync(Buffer.from(form(cc, `padding=${"a".repeat(1024 * 1024)}`)));
    const sent = await send(url, { method: "POST", body: bomb, headers: { "content-type": FORM_TYPE, "content-encoding": "gzip" } });
    expectOAuthError(sent, 413, "invalid_request");
  });

  it.each([
    ["gzip", Buffer.from(cc)],
    ["gzip", gzipSync(cc).subarray(0, 20)],
    ["deflate", Buffer.from("not deflate at all")],
  ])("answers a body that is not valid %s for its Content-Encoding with 400 invalid_request (%#)", async (encoding, body) => {
    const res = await send(url, { method: "POST", body, headers: { "content-type": FORM_TYPE, "content-encoding": encoding } });
    expectOAuthError(res, 400, "invalid_request");
  });

  it("answers an unsupported Content-Encoding with a 4xx JSON error", async () => {
    const res = await send(url, { method: "POST", body: cc, headers: { "content-type": FORM_TYPE, "content-encoding": "compress" } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json?.error).toBe("invalid_request");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("ignores client credentials in the query string (RFC 6749 §2.3.1)", async () => {
    const res = await postForm(`${url}?client_id=${SERVICE.id}&client_secret=${SERVICE.secret}`, { grant_type: "client_credentials" });
    expectOAuthError(res, 401, "invalid_client");
  });

  it.each(["GET", "PUT", "DELETE", "PATCH"])("answers %s with 405, Allow: POST and a JSON error", async (method) => {
    const res = await send(url, { method });
    expectOAuthError(res, 405, "invalid_request");
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("every answer", () => {
  it("marks a successful token response no-store and gives no internals", async () => {
    const res: FormResponse = await postForm(url, CC);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expectNoInternals(res.text);
  });

  it("keeps every error_description within the RFC 6749 §5.2 character set, whatever the request contained", async () => {
    const cases: Array<Record<string, string> | string> = [
      form(cc, "grant_type=client_credentials"),
      { ...CC, grant_type: 'x"y\\z\u00fc' },
      { ...CC, scope: "openid" },
      { ...CC, scope: 'no-such-scope"\\' },
      { ...CC, client_id: 'who"\\' },
      { ...CC, grant_type: "password" },
    ];
    const outside: string[] = [];
    for (const body of cases) {
      const res = await postForm(url, body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      const description = String(res.json?.error_description);
      if (!/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/.test(description)) outside.push(description);
    }
    expect(outside).toEqual([]);
  });

  it("never answers 500 to malformed percent-encoding, odd separators or binary bodies", async () => {
    const bodies = ["%", "%zz=%", "&&&==&", "grant_type=%E0%A4%A", "\u0000\u0001=\u00ff", "a".repeat(100) + "=" + "%".repeat(50)];
    for (const body of bodies) {
      const res = await postForm(url, body);
      expect(res.status, `${JSON.stringify(body)} → ${res.text}`).toBeLessThan(500);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expectNoInternals(res.text);
    }
  });
});
