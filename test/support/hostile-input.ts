/**
 * fast-check arbitraries for hostile HTTP requests to one route: any method, a path with garbage
 * parameters and suffixes, query strings with repeated, malformed, overlong and prototype-polluting
 * parameters, bodies of any type under any Content-Type and Content-Encoding, garbage cookies and
 * Authorization headers. Real values (a live session cookie, a token) are mixed in so that requests
 * get past the first check and reach the code behind it.
 */
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import type { RawRequest } from "./raw-http.ts";

export const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] as const;

/** Real values of the provider under test, to be mixed with garbage. */
export interface Samples {
  /** Parameter values that mean something (client ids, redirect URIs, tokens, CSRF tokens, …). */
  values: string[];
  /** Values for path parameters (`:id`): live interaction ids and the like. */
  pathParams: string[];
  /** Cookie names and live values. */
  cookies: Record<string, string[]>;
  /** [client id, secret] pairs that authenticate. */
  credentials: Array<[string, string]>;
  /** Access, ID and refresh tokens. */
  tokens: string[];
  /** Per route path: parameter sets a real client sends it (query or form), for the generator to mutate. */
  forms: Record<string, Array<Record<string, string>>>;
  /** Per route path: JSON bodies a real client sends it. */
  json: Record<string, object[]>;
  /** The provider's size limits (provider.yaml security), to go just over them. */
  limits: { maxBodyBytes: number; maxParameterLength: number };
}

/** A request for one route, and whether its path is the route's own (no suffix) — only then is the answer's kind known. */
export interface HostileRequest extends RawRequest {
  exactPath: boolean;
}

/** Parameter names the provider reads somewhere (protocol, flows, plugin routes). */
const PARAMETER_NAMES = [
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "response_mode",
  "scope",
  "state",
  "nonce",
  "prompt",
  "max_age",
  "code_challenge",
  "code_challenge_method",
  "login_hint",
  "login_type",
  "fa",
  "acr_values",
  "id_token_hint",
  "post_logout_redirect_uri",
  "lang",
  "ui_locales",
  "grant_type",
  "code",
  "code_verifier",
  "refresh_token",
  "username",
  "password",
  "token",
  "token_type_hint",
  "access_token",
  "confirm",
  "csrf",
  "event",
  "method",
  "type",
  "seen",
  "enrolled",
  "removed",
  "handle",
  "jws",
  "name",
  "public_jwk",
  "target",
  "credential",
  "image",
];
const HOSTILE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "a[]",
  "scope[]",
  "client_id[]",
  "__proto__[admin]",
  "constructor[prototype][polluted]",
  "a[b][c]",
  "",
];
const PLAUSIBLE_VALUES = [
  "demo-web",
  "demo-spa",
  "demo-service",
  "demo-legacy",
  "acme-api",
  "http://localhost:3001/callback",
  "http://localhost:3001/",
  "code",
  "token",
  "id_token",
  "openid",
  "openid profile",
  "openid profile email offline_access",
  "acme",
  "none",
  "login",
  "force_login",
  "consent",
  "S256",
  "plain",
  "query",
  "form_post",
  "fragment",
  "client_credentials",
  "authorization_code",
  "refresh_token",
  "password",
  "alice",
  "alice-password",
  "2FA",
  "Mfa",
  "MyVendor",
  "eID",
  "qrcode",
  "totp",
  "fido",
  "sms",
  "email",
  "face",
  "appotp",
  "SUBMIT_PASSWORD",
  "SUBMIT_USERNAME",
  "SUBMIT_CODE",
  "CHOOSE_METHOD",
  "SEND_CODE",
  "RESEND_CODE",
  "CHECK",
  "RESTART",
  "SUBMIT_FRAME",
  "SUBMIT_ASSERTION",
  "access_token",
  "yes",
  "no",
  "en",
  "jp",
  "cn",
  "tw",
  "vn",
  "0",
  "-1",
  "99999999999999999999",
  "pending",
  "scanned",
];
/** Already on the wire: malformed percent-encoding, encoded NUL/CR/LF, invalid UTF-8, traversal. */
const MALFORMED = [
  "%",
  "%%",
  "%zz",
  "%2",
  "%G0",
  "%E0%A4%A",
  "%C3%28",
  "%FF%FE%FD",
  "%ED%A0%80",
  "%F4%90%80%80",
  "%C0%AF",
  "%00",
  "%00abc",
  "%0D%0ASet-Cookie:%20x=1",
  "%2e%2e%2f",
  "..",
  "%u0041",
  "+",
  "%2B",
];
/** Decoded text, percent-encoded before it goes on the wire. */
const NASTY_TEXT = [
  "\u0000",
  "\u0001\u0002\u001b[31m",
  "\r\n",
  "\t",
  "\u007f",
  "\u202e",
  "\ufeff",
  "\ud800",
  "\udfff",
  "😀",
  "<script>alert(1)</script>",
  `"'\``,
  "${env:HOME}",
  "${file:/etc/passwd}",
  "{{constructor.constructor}}",
  "../../etc/passwd",
  "javascript:alert(1)",
  "http://evil.example/",
  "null",
  "undefined",
  "NaN",
  "1e309",
  "-0",
  "[object Object]",
  " ",
  "\\",
];

/** Any bytes a header value may carry (node refuses control characters before they leave). */
const headerText = (maxLength = 40) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** UTF-8 bytes percent-encoded except the unreserved ones (encodeURIComponent throws on lone surrogates). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`,
    )
    .join("");
}

/** One piece of a URL, as it goes on the wire. */
function urlPiece(samples: Samples): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...PLAUSIBLE_VALUES, ...samples.values).map(percentEncode) },
    { weight: 3, arbitrary: fc.constantFrom(...MALFORMED) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_TEXT).map(percentEncode) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }).map(percentEncode) },
    // Raw printable ASCII: stray '%', '&', '=', '?', quotes. (Node itself refuses a request line with
    // bytes over 0x7E, before any of our code runs: invalid UTF-8 arrives percent-encoded, above.)
    {
      weight: 2,
      arbitrary: fc.string({
        unit: fc
          .integer({ min: 0x21, max: 0x7e })
          .filter((c) => c !== 0x23)
          .map((c) => String.fromCharCode(c)),
        maxLength: 30,
      }),
    },
    // Just over max_parameter_length, and far over it.
    {
      weight: 1,
      arbitrary: fc.constantFrom(samples.limits.maxParameterLength + 1, 3 * samples.limits.maxParameterLength).map((n) => "a".repeat(n)),
    },
  );
}

/** name=value pairs as they go on the wire, with bare names, empty names and repeats. */
function randomPairs(samples: Samples): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...PARAMETER_NAMES) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NAMES).map(percentEncode) },
    { weight: 1, arbitrary: urlPiece(samples) },
  );
  const pair = fc.oneof(
    { weight: 8, arbitrary: fc.tuple(name, urlPiece(samples)).map(([n, v]) => `${n}=${v}`) },
    { weight: 1, arbitrary: name },
    { weight: 1, arbitrary: fc.constantFrom("", "=", "==", "&", "a=b=c") },
  );
  return fc
    .tuple(fc.array(pair, { maxLength: 8 }), fc.boolean())
    .map(([list, repeat]) => (repeat && list.length > 0 ? [...list, list[0]] : list).join("&"));
}

/** A real client's parameters with some dropped, replaced or repeated with garbage, and garbage added. */
function mutatedForm(form: Record<string, string>, samples: Samples): fc.Arbitrary<string> {
  const entries = Object.entries(form).map(([name, value]) => {
    const key = percentEncode(name);
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant([`${key}=${percentEncode(value)}`]) },
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: urlPiece(samples).map((v) => [`${key}=${v}`]) },
      { weight: 1, arbitrary: urlPiece(samples).map((v) => [`${key}=${percentEncode(value)}`, `${key}=${v}`]) },
    );
  });
  const extra = fc.option(randomPairs(samples), { freq: 2, nil: "" });
  return fc.tuple(fc.tuple(...entries), extra).map(([kept, more]) => [...kept.flat(), ...(more ? [more] : [])].join("&"));
}

/** Parameters for a route: random ones, or mutations of what a real client sends it. */
function pairs(samples: Samples, path: string): fc.Arbitrary<string> {
  const forms = samples.forms[path] ?? [];
  if (forms.length === 0) return randomPairs(samples);
  return fc.oneof(
    { weight: 1, arbitrary: randomPairs(samples) },
    ...forms.map((form) => ({ weight: 2, arbitrary: mutatedForm(form, samples) })),
  );
}

/** A real client's JSON body with members dropped, replaced by any JSON, or polluted. */
function mutatedJson(body: object): fc.Arbitrary<string> {
  const members = Object.entries(body).map(([name, value]) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constant([[name, value]]) },
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => [[name, v]]) },
    ),
  );
  const pollution = fc.constantFrom("", ',"__proto__":{"polluted":true}', ',"constructor":{"prototype":{"polluted":true}}');
  return fc.tuple(fc.tuple(...members), pollution).map(([kept, extra]) => {
    const text = JSON.stringify(Object.fromEntries(kept.flat() as Array<[string, unknown]>));
    return extra === "" ? text : text.length > 2 ? `${text.slice(0, -1)}${extra}}` : `{${extra.slice(1)}}`;
  });
}

interface Body {
  bytes: Buffer;
  /** The Content-Type that fits it. */
  type: string;
}

const OTHER_TYPES = [
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=iso-8859-1",
  "application/json",
  "application/json; charset=utf-16",
  "application/jwt",
  "text/plain",
  "text/html",
  "multipart/form-data; boundary=X",
  "multipart/form-data",
  "application/octet-stream",
  "*/*",
  ";;;",
  "application/x-www-form-urlencoded, application/json",
  'application/json; charset="',
  "application/x-www-form-urlencoded; boundary=",
];
const HOSTILE_JSON = [
  "",
  "{",
  "[1,]",
  "\ufeff{}",
  "null",
  "true",
  '"text"',
  "[]",
  "1e999999",
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"jws":{"__proto__":null}}',
  '{"jws":"a.b.c"}',
  '{"jws":"eyJhbGciOiJub25lIn0.e30."}',
  '{"handle":["x"]}',
  '{"handle":"x"}',
  '{"token":"x","name":"\\u0000","public_jwk":{"kty":"EC","crv":"P-256","x":"A","y":"B"}}',
  '{"token":"x","name":"phone","public_jwk":{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","d":"AAAA"}}',
  "[".repeat(5000) + "]".repeat(5000),
  '{"a":'.repeat(2000) + "1" + "}".repeat(2000),
];

function body(samples: Samples, path: string): fc.Arbitrary<Body | undefined> {
  const form = "application/x-www-form-urlencoded";
  const json = samples.json[path] ?? [];
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    // Forms are what most routes read: the more of them, the further requests get.
    {
      weight: samples.forms[path] ? 12 : 6,
      arbitrary: pairs(samples, path).map((text) => ({ bytes: Buffer.from(text, "latin1"), type: form })),
    },
    ...json.map((real) => ({
      weight: 4,
      arbitrary: mutatedJson(real).map((text) => ({ bytes: Buffer.from(text), type: "application/json" })),
    })),
    { weight: 2, arbitrary: fc.json({ maxDepth: 3 }).map((text) => ({ bytes: Buffer.from(text), type: "application/json" })) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_JSON).map((text) => ({ bytes: Buffer.from(text), type: "application/json" })) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: "binary", maxLength: 200 })
        .map((text) => ({ bytes: Buffer.from(text), type: "text/plain; charset=utf-8" })),
    },
    { weight: 1, arbitrary: randomPairs(samples).map((text) => ({ bytes: multipart(text), type: "multipart/form-data; boundary=X" })) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes: Buffer.from(bytes), type: "application/octet-stream" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: samples.limits.maxBodyBytes + 1, max: 3 * samples.limits.maxBodyBytes })
        .map((n) => ({ bytes: Buffer.alloc(n, "a"), type: form })),
    },
  );
}

/** A multipart body made from name=value pairs, with a part that never ends. */
function multipart(text: string): Buffer {
  const parts = text
    .split("&")
    .map((pair) => `--X\r\nContent-Disposition: form-data; name="${pair.split("=")[0]}"\r\n\r\n${pair.split("=")[1] ?? ""}\r\n`);
  return Buffer.from(`${parts.join("")}--X\r\nContent-Disposition: form-data; name="unterminated"\r\n\r\n`, "latin1");
}

/** Content-Type and Content-Encoding headers for a body (or for none), and the bytes to send. */
function framing(chosen: Body | undefined): fc.Arbitrary<{ headers: Record<string, string>; bytes?: Buffer }> {
  const type = fc.oneof(
    { weight: 12, arbitrary: fc.constant(chosen?.type) },
    { weight: 2, arbitrary: fc.constantFrom(...OTHER_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: headerText() },
  );
  const encoding = fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("gzip", "deflate", "br", "x-garbage", "gzip, gzip", "identity", "GZIP") },
  );
  return fc.tuple(type, encoding, fc.boolean()).map(([contentType, contentEncoding, compress]) => {
    const bytes = chosen && contentEncoding === "gzip" && compress ? gzipSync(chosen.bytes) : chosen?.bytes;
    const headers: Record<string, string> = {};
    if (contentType !== undefined) headers["content-type"] = contentType;
    if (contentEncoding !== undefined) headers["content-encoding"] = contentEncoding;
    if (bytes) headers["content-length"] = String(bytes.length);
    return { headers, bytes };
  });
}

function cookieHeader(samples: Samples): fc.Arbitrary<string | undefined> {
  const names = Object.keys(samples.cookies);
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...Object.values(samples.cookies).flat()) },
    { weight: 3, arbitrary: headerText().map((v) => v.replace(/;/g, "")) },
    { weight: 2, arbitrary: fc.constantFrom("%zz", "%", '"quoted"', '"', "a=b=c", "", "%00", "x".repeat(4000)) },
  );
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constantFrom(...names.map((n) => `__Host-${n}`), "", "=", "__proto__") },
  );
  const jar = fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 }).map((list) => list.map(([n, v]) => `${n}=${v}`).join("; "));
  // The browser's own cookies, as it sends them: the session and the open login page's binding.
  const real = Object.entries(samples.cookies)
    .map(([n, values]) => `${n}=${values[0]}`)
    .join("; ");
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constant(real) },
    { weight: 4, arbitrary: jar },
    { weight: 1, arbitrary: headerText() },
  );
}

const b64 = (text: string, encoding: BufferEncoding = "base64") => Buffer.from(text, "latin1").toString(encoding);
const jwt = (header: object, payload: object, signature = "") =>
  `${b64(JSON.stringify(header), "base64url")}.${b64(JSON.stringify(payload), "base64url")}.${signature}`;

function authorization(samples: Samples): fc.Arbitrary<string | undefined> {
  const garbage = headerText();
  const basic = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom("!!!", "====", "YQ", "", "Og==", "OjpPOg", "%zz", "a b", "\xff\xfe") },
    { weight: 1, arbitrary: fc.tuple(garbage, garbage).map(([id, secret]) => b64(`${id}:${secret}`)) },
    { weight: 1, arbitrary: garbage.map((text) => b64(text.replace(/:/g, ""))) },
    { weight: 3, arbitrary: fc.constantFrom(...samples.credentials).map(([id, secret]) => b64(`${id}:${secret}`)) },
    { weight: 1, arbitrary: fc.constantFrom(...samples.credentials).map(([id]) => b64(`${id}:%zz%`)) },
  );
  const bearer = fc.oneof(
    garbage,
    fc.constantFrom(...samples.tokens),
    fc.constantFrom(...samples.tokens).map((t) => `${t.slice(0, -4)}AAAA`),
    fc.constantFrom(
      jwt({ alg: "none", typ: "at+jwt" }, { sub: "E10001", scope: "openid profile", exp: 4102444800 }),
      jwt({ alg: "HS256", typ: "at+jwt" }, { sub: "E10001" }, "c2lnbmF0dXJl"),
      jwt({ alg: "RS256", kid: "../../etc/passwd" }, {}, "AAAA"),
      "a.b.c",
      "....",
      ".",
      "eyJ.eyJ.",
      "x".repeat(5000),
    ),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: basic.map((v) => `Basic ${v}`) },
    { weight: 2, arbitrary: bearer.map((v) => `Bearer ${v}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "Bearer",
        "Bearer ",
        "Basic",
        "bearer a b",
        "BASIC Og==",
        "Negotiate YQ==",
        "DPoP abc",
        'Digest username="x"',
      ),
    },
    { weight: 1, arbitrary: garbage },
  );
}

/** Headers a browser or a proxy sends, with garbage in them. */
function otherHeaders(): fc.Arbitrary<Record<string, string>> {
  const maybe = (arbitrary: fc.Arbitrary<string>) => fc.option(arbitrary, { freq: 3, nil: undefined });
  return fc
    .record({
      "accept-language": maybe(fc.oneof(headerText(), fc.constantFrom("*;q=abc", "zh-Hant-TW,zh;q=0.9", "en;q=", ",,,", "x".repeat(2000)))),
      accept: maybe(
        fc.constantFrom(
          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
          "text/html",
          "application/json",
          "*/*",
          "",
          "text/html;q=x",
        ),
      ),
      "x-forwarded-for": maybe(fc.oneof(headerText(), fc.constantFrom("::1, 127.0.0.1", "999.999.999.999", "unknown"))),
      "x-request-id": maybe(headerText(80)),
      origin: maybe(fc.oneof(headerText(), fc.constantFrom("null", "http://evil.example"))),
      "if-none-match": maybe(headerText()),
      host: maybe(fc.constantFrom("evil.example", "", "[::1", "localhost:99999")),
    })
    .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>);
}

const SUFFIXES = [
  "/",
  "//",
  "/..",
  "/../",
  "/%2e%2e/",
  "/%2E%2E%2F",
  "/..%2f..%2fetc%2fpasswd",
  "/.",
  "%00",
  "%2f",
  ";x=1",
  "/%zz",
  "/%",
  "/\xff",
  "/..;/",
  "/~",
];

/** The route's path with its parameters filled and, sometimes, something after it. */
function path(pattern: string, samples: Samples): fc.Arbitrary<{ path: string; exact: boolean }> {
  const segments = pattern
    .split("/")
    .map((segment) =>
      segment.startsWith(":")
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...samples.pathParams) },
            { weight: 1, arbitrary: urlPiece(samples).filter((s) => s !== "" && !/[/?]/.test(s)) },
            { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/) },
          )
        : fc.constant(segment),
    );
  const suffix = fc.oneof(
    { weight: 10, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.constantFrom(...SUFFIXES) },
    { weight: 1, arbitrary: urlPiece(samples).map((s) => `/${s}`) },
  );
  return fc.tuple(fc.tuple(...segments), suffix).map(([parts, rest]) => ({ path: parts.join("/") + rest, exact: rest === "" }));
}

/** Hostile requests for a route: mostly its own methods, sometimes any other. */
export function hostileRequest(route: { path: string; methods: readonly string[] }, samples: Samples): fc.Arbitrary<HostileRequest> {
  const method = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...route.methods) },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  );
  const framedBody = body(samples, route.path).chain(framing);
  return fc
    .record({
      method,
      where: path(route.path, samples),
      query: fc.option(pairs(samples, route.path), { freq: 4 }),
      framed: framedBody,
      cookie: cookieHeader(samples),
      authorization: authorization(samples),
      other: otherHeaders(),
    })
    .map(({ method, where, query, framed, cookie, authorization, other }) => {
      const headers: Record<string, string> = { ...other, ...framed.headers };
      if (cookie !== undefined) headers.cookie = cookie;
      if (authorization !== undefined) headers.authorization = authorization;
      return {
        method,
        target: query === null ? where.path : `${where.path}?${query}`,
        headers,
        body: framed.bytes,
        exactPath: where.exact,
      };
    });
}
