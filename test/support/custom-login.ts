/**
 * Test support for the custom QR-code login over raw HTTP: what a page gets from LoginJs, the phone's
 * scan with the reference trusted app, the mobile page's token and status writes, and the script's
 * PC login post — each exactly as the contract (docs/custom-login.md) describes it.
 */
import { expect } from "vitest";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { postForm, send, type TestProvider } from "./test-provider.ts";
import { redeemCode } from "./code-grant.ts";

export const MOBILE_REDIRECT = "http://localhost:3005/custom-login/mobile";
export const PC_REDIRECT = "http://localhost:3005/custom-login/pc";
export const DEMO_WEB = { id: "demo-web", secret: "demo-web-secret" } as const;

/** The SESSION a LoginJs script carries (contract §1). */
export interface ScriptSession {
  sessionId: string;
  binding: string;
  qrUri: string;
  qrImage: string;
  expiresIn: number;
  statusUrl: string;
  renewUrl: string;
  authorizeUrl: string;
  pcAuthorize: Record<string, string>;
  prompts: Record<string, string>;
}

/** LoginJs's query for demo-web's pages; `params` adds or (as undefined) removes parameters. */
export function loginJsUrl(p: TestProvider, params: Record<string, string | undefined> = {}): string {
  const all: Record<string, string | undefined> = {
    clientId: DEMO_WEB.id,
    MobileRedirectUrl: MOBILE_REDIRECT,
    PCRedirectUrl: PC_REDIRECT,
    ...params,
  };
  const query = new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return `${p.url}/Acme/CustomLogin/LoginJs?${query}`;
}

/** Loads LoginJs (a 200 script) and reads its SESSION. */
export async function loadLoginJs(p: TestProvider, params: Record<string, string | undefined> = {}): Promise<ScriptSession> {
  const res = await send(loginJsUrl(p, params));
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
  return sessionOfScript(res.text);
}

/** The SESSION literal of a LoginJs script (JSON with \u escapes, which JSON.parse reads). */
export function sessionOfScript(script: string): ScriptSession {
  const match = /var SESSION = (.*);\n/.exec(script);
  expect(match, script.slice(0, 300)).toBeTruthy();
  return JSON.parse(match![1]!) as ScriptSession;
}

/** The ERROR literal of a LoginJs error script. */
export function errorOfScript(script: string): string {
  const match = /var ERROR = (.*);\n/.exec(script);
  expect(match, script.slice(0, 300)).toBeTruthy();
  return JSON.parse(match![1]!) as string;
}

/** The page's poll, answered at once (no `seen`). */
export async function scanState(
  session: Pick<ScriptSession, "statusUrl" | "sessionId" | "binding">,
  binding = session.binding,
): Promise<string> {
  const res = await send(`${session.statusUrl}?${new URLSearchParams({ session_id: session.sessionId, binding })}`);
  expect(res.status, res.text).toBe(200);
  return (res.json as { state: string }).state;
}

/** The phone scans the QR: the trusted app opens its link; the redirect to the mobile page, as parameters. */
export async function scan(phone: TrustedAppClient, qrUri: string): Promise<{ location: string; params: URLSearchParams }> {
  const { status, location } = await phone.sso(qrUri);
  expect(status).toBe(303);
  return { location: location!, params: new URL(location!).searchParams };
}

/** The mobile page's backend: its code for tokens (demo-web at the mobile redirect URI). */
export async function mobileTokens(p: TestProvider, code: string): Promise<{ access_token: string; id_token: string }> {
  const res = await redeemCode(p, code, { redirect_uri: MOBILE_REDIRECT, code_verifier: undefined }, DEMO_WEB);
  expect(res.status, res.text).toBe(200);
  return res.json as { access_token: string; id_token: string };
}

/** POST WriteStatusOperation with a bearer token (or none) and a JSON (or raw) body. */
export function writeStatus(p: TestProvider, token: string | undefined, body: unknown, contentType = "application/json") {
  return send(`${p.url}/Acme/CustomLogin/WriteStatusOperation`, {
    method: "POST",
    headers: { "content-type": contentType, ...(token !== undefined && { authorization: `Bearer ${token}` }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The script's PC login post (the form it submits), with another binding when a test attacks it. */
export async function pcLogin(
  session: ScriptSession,
  binding = session.binding,
): Promise<{ status: number; location: URL | undefined; text: string }> {
  const res = await fetch(session.authorizeUrl, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ session_id: session.sessionId, binding, ...session.pcAuthorize }),
  });
  const location = res.headers.get("location");
  return { status: res.status, location: location ? new URL(location) : undefined, text: await res.text() };
}

/** A scanned session whose mobile page holds its token: the start of most write-status tests. */
export async function scannedSession(p: TestProvider, phone: TrustedAppClient, params: Record<string, string | undefined> = {}) {
  const session = await loadLoginJs(p, params);
  const { params: back } = await scan(phone, session.qrUri);
  const tokens = await mobileTokens(p, back.get("code")!);
  return { session, tokens, mobileState: back.get("state")! };
}

/** POST Renew as the script does. */
export function renew(session: Pick<ScriptSession, "renewUrl" | "sessionId" | "binding">, binding = session.binding) {
  return postForm(session.renewUrl, { session_id: session.sessionId, binding });
}
