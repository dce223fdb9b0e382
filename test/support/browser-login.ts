import { expect } from "vitest";
import { formAction, hiddenField, type RawBrowser, type Answer } from "./raw-browser.ts";

/** demo-web's authorize parameters; `extra` adds or replaces (undefined removes). */
export function authorizeUrl(issuer: string, extra: Record<string, string | undefined> = {}, path = "/connect/authorize"): string {
  const params: Record<string, string | undefined> = {
    client_id: "demo-web",
    redirect_uri: "http://localhost:3001/callback",
    response_type: "code",
    scope: "openid profile",
    state: "st-1",
    nonce: "n-1",
    ...extra,
  };
  const url = new URL(path, issuer);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/**
 * Starts an authorize request and follows it to the login page, on the password form: when the
 * flow starts with another method (the demo's first is qrcode), it chooses the password method.
 */
export async function openLoginPage(browser: RawBrowser, url: string): Promise<Answer> {
  const page = await browser.follow(await browser.get(url));
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  return choosePassword(browser, page);
}

/** The password form: `page` itself, or the page after choosing the password method on it. */
export async function choosePassword(browser: RawBrowser, page: Answer): Promise<Answer> {
  if (page.text.includes('name="password"') || !page.text.includes('name="method" value="password"')) return page;
  const chosen = await browser.post(formAction(page.text, page.url), {
    csrf: hiddenField(page.text, "csrf") ?? "",
    event: "CHOOSE_METHOD",
    method: "password",
  });
  expect(chosen.status, chosen.text.slice(0, 300)).toBe(200);
  return chosen;
}

/** Submits the password form of a login page (choosing the password method first when the page shows another). */
export async function submitPassword(browser: RawBrowser, loginPage: Answer, username: string, password: string): Promise<Answer> {
  const page = await choosePassword(browser, loginPage);
  return browser.post(formAction(page.text, page.url), {
    csrf: hiddenField(page.text, "csrf") ?? "",
    event: "SUBMIT_PASSWORD",
    username,
    password,
  });
}

/** Logs in through the password form and returns the answer that goes back to the client. */
export async function loginWithPassword(
  browser: RawBrowser,
  url: string,
  username = "alice",
  password = "alice-password",
): Promise<Answer> {
  const page = await openLoginPage(browser, url);
  return submitPassword(browser, page, username, password);
}

/** The authorization response parameters of a redirect to the client (query or fragment). */
export function responseParams(answer: Answer): URLSearchParams {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  const url = new URL(answer.location!);
  return url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}
