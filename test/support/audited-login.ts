/**
 * A real login over HTTP and its code exchange, for the audit trail's tests: alice signs in to demo-web
 * with her password in a RawBrowser (which keeps the SSO session cookie), and demo-web redeems the code.
 */
import { expect } from "vitest";
import { decodeJwt } from "jose";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "./browser-login.ts";
import { redeemCode } from "./code-grant.ts";
import { RawBrowser } from "./raw-browser.ts";
import type { TestProvider } from "./test-provider.ts";

export const ALICE = { username: "alice", password: "alice-password" } as const;

export interface AuditedLogin {
  browser: RawBrowser;
  code: string;
  tokens: { access_token: string; id_token: string; refresh_token?: string };
  /** The access token's jti. */
  jti: string;
}

/** Logs alice in to demo-web (scope `openid profile offline_access`: a refresh token too) and redeems the code. */
export async function loginAndRedeem(p: TestProvider, scope = "openid profile offline_access"): Promise<AuditedLogin> {
  const browser = new RawBrowser();
  const answer = await loginWithPassword(browser, authorizeUrl(p.issuer, { scope }), ALICE.username, ALICE.password);
  const code = responseParams(answer).get("code");
  expect(code, answer.location).toBeTruthy();
  const res = await redeemCode(p, code!, { code_verifier: undefined });
  expect(res.status, res.text).toBe(200);
  const tokens = res.json as AuditedLogin["tokens"];
  return { browser, code: code!, tokens, jti: String(decodeJwt(tokens.access_token).jti) };
}

/** Collects every event the provider records from now on. */
export function collectAudit(p: TestProvider): AuditEvent[] {
  const events: AuditEvent[] = [];
  p.provider.audit.subscribe((event) => events.push(event));
  return events;
}

/** The events of one type, narrowed. */
export function eventsOf<T extends AuditEvent["type"]>(events: readonly AuditEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

/** The event of a type (a login event's interface covers two types, so Extract would miss it). */
type EventOf<T extends AuditEvent["type"]> = AuditEvent & { type: T };
