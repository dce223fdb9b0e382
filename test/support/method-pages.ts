/**
 * Factor-method pages over raw HTTP (RawBrowser): posting a step's form, an SSO session to enroll
 * from, the account page's "Set up", and a page's text with the per-response values blanked out, so
 * two answers can be compared ("a locked account sees exactly the wrong-code page").
 */
import { expect } from "vitest";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams } from "./browser-login.ts";
import { formAction, hiddenField, type Answer, type RawBrowser } from "./raw-browser.ts";

/** Posts the page's form (its action and CSRF token) with `fields` (which name the event). */
export function submitStep(browser: RawBrowser, page: Answer, fields: Record<string, string>): Promise<Answer> {
  return browser.post(formAction(page.text, page.url), { csrf: hiddenField(page.text, "csrf") ?? "", ...fields });
}

/** Logs `browser` in with the password method (demo-web), which leaves it an SSO session. */
export async function signInWithPassword(
  browser: RawBrowser,
  issuer: string,
  username = "alice",
  password = `${username}-password`,
): Promise<void> {
  expect(responseParams(await loginWithPassword(browser, authorizeUrl(issuer), username, password)).get("code")).toBeTruthy();
}

/** Starts enrolling `method` from the account page of a signed-in browser; the first enrollment page. */
export async function startEnrollment(browser: RawBrowser, url: string, method: string): Promise<Answer> {
  const account = await browser.get(`${url}/account`);
  expect(account.status, account.text.slice(0, 300)).toBe(200);
  const started = await browser.post(`${url}/account/enroll`, { csrf: hiddenField(account.text, "csrf")!, method });
  expect(started.status, started.text.slice(0, 300)).toBe(303);
  return browser.follow(started);
}

/** A fresh login at demo-web with login_hint `username`, switched to `method` when it is not the flow's first. */
export async function openMethodPage(browser: RawBrowser, issuer: string, method: string, username = "alice"): Promise<Answer> {
  const page = await openLoginPage(browser, authorizeUrl(issuer, { login_hint: username }));
  if (page.text.includes(`name="method" value="${method}"`)) return submitStep(browser, page, { event: "CHOOSE_METHOD", method });
  return page;
}

/** The page with what differs between any two answers blanked: CSRF token, interaction id, CSP nonce, request id. */
export function comparablePage(html: string): string {
  return (
    html
      .replace(/(name="csrf" value=")[^"]*/g, "$1")
      .replace(/\/interaction\/[A-Za-z0-9_-]+/g, "/interaction/ID")
      .replace(/nonce="[^"]*"/g, 'nonce=""')
      .replace(/data-handle="[^"]*"/g, 'data-handle=""')
      // "Open in the trusted app" repeats the request's own state and nonce.
      .replace(/href="acmeauth:\/\/sso\/oidc\?[^"]*"/g, 'href="acmeauth://sso/oidc?"')
  );
}

/**
 * users.yaml edits that add users (`name` → sub `T<n>`; a password only where `passwordHashes` gives one), after the demo's two, so
 * each test can have a user of its own: single-use state (claimed TOTP steps, attempt counters) is
 * per user.
 */
export function extraUsers(names: readonly string[], passwordHashes: Readonly<Record<string, string>> = {}): Record<string, unknown> {
  return Object.fromEntries(
    names.map((username, i) => [
      `users.${i + 2}`,
      {
        username,
        sub: `T${1000 + i}`,
        ...(passwordHashes[username] && { password_hash: passwordHashes[username] }),
        claims: { name: username },
      },
    ]),
  );
}
