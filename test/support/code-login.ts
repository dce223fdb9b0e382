/**
 * Logging in with a one-time-code method (SMS, e-mail) over raw HTTP: a browser with its own client
 * address (the provider trusts X-Forwarded-For in these tests), and the forms of the code pages.
 */
import { expect } from "vitest";
import { authorizeUrl, openLoginPage } from "./browser-login.ts";
import { formAction, hiddenField, RawBrowser, type Answer } from "./raw-browser.ts";
import { comparablePage } from "./method-pages.ts";

/** A RawBrowser whose requests come from `address` (X-Forwarded-For, for a provider with listen.trust_proxy). */
export class AddressedBrowser extends RawBrowser {
  readonly address: string;

  constructor(address: string) {
    super();
    this.address = address;
  }

  override get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    return super.get(url, { "x-forwarded-for": this.address, ...headers });
  }

  override post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return super.post(url, form, { "x-forwarded-for": this.address, ...headers });
  }
}

let addresses = 0;
/** A fresh documentation-range address per browser, so per-address budgets do not mix between tests. */
export const nextAddress = () => `198.18.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

/** Posts one of the page's forms (all carry the same CSRF token and action). */
export function postStep(browser: RawBrowser, page: Answer, fields: Record<string, string>): Promise<Answer> {
  return browser.post(formAction(page.text, page.url), { csrf: hiddenField(page.text, "csrf") ?? "", ...fields });
}

/**
 * A login of `loginHint` at demo-web in a new browser, on the code method's first page; `choose`
 * switches to the method first (when another method comes first in the flow).
 */
export async function openCodeLogin(
  issuer: string,
  loginHint: string,
  address = nextAddress(),
  choose?: string,
): Promise<{ browser: AddressedBrowser; page: Answer }> {
  const browser = new AddressedBrowser(address);
  let page = await openLoginPage(browser, authorizeUrl(issuer, { login_hint: loginHint }));
  if (choose !== undefined) page = await postStep(browser, page, { event: "CHOOSE_METHOD", method: choose });
  expect(page.text).toContain('name="event" value="SEND_CODE"');
  return { browser, page };
}

/** The page language the code forms post along (for the message text), as a browser would send it. */
const langOf = (page: Answer) => hiddenField(page.text, "lang") ?? "";

export const sendCode = (browser: RawBrowser, page: Answer) => postStep(browser, page, { event: "SEND_CODE", lang: langOf(page) });
export const resendCode = (browser: RawBrowser, page: Answer) => postStep(browser, page, { event: "RESEND_CODE", lang: langOf(page) });
export const submitCode = (browser: RawBrowser, page: Answer, code: string) => postStep(browser, page, { event: "SUBMIT_CODE", code });

/** A page with its per-request parts (CSRF token, interaction id, CSP nonce, the app entry's request) blanked, to compare two pages. */
export const normalisePage = comparablePage;

/** The six-digit code in a message text (the first one). */
export function codeIn(text: string): string {
  const match = /\b([0-9]{6})\b/.exec(text);
  if (!match) throw new Error(`no code in ${JSON.stringify(text)}`);
  return match[1]!;
}

/** A six-digit code other than `code`. */
export const otherThan = (code: string, offset = 1) => String((Number(code) + offset) % 1_000_000).padStart(6, "0");

/** A browser signed in as alice (password login, so an SSO session) on her account page. */
export async function aliceOnAccountPage(
  provider: { issuer: string; url: string },
  address = nextAddress(),
): Promise<{ browser: AddressedBrowser; account: Answer }> {
  const browser = new AddressedBrowser(address);
  const login = await openLoginPage(browser, authorizeUrl(provider.issuer));
  const done = await postStep(browser, login, { event: "SUBMIT_PASSWORD", username: "alice", password: "alice-password" });
  expect(done.status, done.text.slice(0, 300)).toBe(303);
  const account = await browser.get(`${provider.url}/account`);
  expect(account.status).toBe(200);
  return { browser, account };
}

/** Starts enrolling `methodId` from the account page: the enrollment's first page. */
export async function startEnrollment(provider: { url: string }, browser: RawBrowser, account: Answer, methodId: string): Promise<Answer> {
  const started = await browser.post(`${provider.url}/account/enroll`, { csrf: hiddenField(account.text, "csrf")!, method: methodId });
  expect(started.status).toBe(303);
  const page = await browser.follow(started);
  expect(page.text).toContain('name="event" value="SUBMIT_TARGET"');
  return page;
}

export const submitTarget = (browser: RawBrowser, page: Answer, target: string) =>
  postStep(browser, page, { event: "SUBMIT_TARGET", target, lang: langOf(page) });
export const changeTarget = (browser: RawBrowser, page: Answer) => postStep(browser, page, { event: "CHANGE_TARGET" });
