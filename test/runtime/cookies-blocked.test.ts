import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { authorizeUrl } from "../support/browser-login.ts";
import { formAction, hiddenField, RawBrowser } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { LANGS } from "../../src/i18n/lang.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(async () => {
  await p?.close();
});

const strings = (lang: string) => parse(readFileSync(`${VIEWS_DIR}/i18n/${lang}.yaml`, "utf8")) as Record<string, string>;
/** A request without any cookie jar: every request goes out without a Cookie header. */
const noJar = (url: string, init: RequestInit = {}) => fetch(url, { redirect: "manual", ...init });

/** The interaction page an authorize request sends the browser to (its binding cookie dropped). */
async function interactionUrl(lang = "en"): Promise<string> {
  const res = await noJar(authorizeUrl(p.issuer, { lang }));
  expect(res.status).toBe(303);
  expect(res.headers.getSetCookie().join()).toMatch(/portcullis_interaction=/);
  return new URL(res.headers.get("location")!, p.issuer).href;
}

describe("a browser that does not keep cookies", () => {
  it.each(LANGS)("is told in %s that cookies are needed, after one test-cookie redirect", async (lang) => {
    const page = await interactionUrl(lang);
    const first = await noJar(page);
    expect(first.status).toBe(303);
    expect(first.headers.getSetCookie()).toEqual([expect.stringMatching(/^portcullis_cookie_test=1; Path=\/; HttpOnly; SameSite=Lax$/)]);
    const check = new URL(first.headers.get("location")!, page).href;
    expect(check).toBe(`${page}?cookie_check=1`);
    const second = await noJar(check);
    expect(second.status).toBe(400);
    const html = await second.text();
    const text = strings(lang);
    expect(html).toContain(`<h1>${text["error.cookies_title"]}</h1>`);
    expect(html).toContain(text["error.cookies_required"]);
    expect(html).not.toContain("no longer valid");
  });

  it("is told so at once when the login form posts back without any cookie", async () => {
    const browser = new RawBrowser();
    const page = await browser.follow(await browser.get(authorizeUrl(p.issuer, { lang: "jp" })));
    expect(page.status).toBe(200);
    const res = await noJar(formAction(page.text, page.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: hiddenField(page.text, "csrf")!, event: "CHOOSE_METHOD", method: "password" }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain(strings("jp")["error.cookies_required"]);
  });

  it("keeps 'no longer valid' for another browser that has cookies but not this login's", async () => {
    const page = await interactionUrl();
    const first = await noJar(page);
    const res = await noJar(new URL(first.headers.get("location")!, page).href, { headers: { cookie: "portcullis_cookie_test=1" } });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("this login page is no longer valid");
    expect(html).not.toContain(strings("en")["error.cookies_title"]);
  });

  it("keeps 'no longer valid' for a login link that does not exist, cookies or not", async () => {
    for (const cookie of [undefined, "portcullis_cookie_test=1"]) {
      const res = await noJar(`${p.issuer}/interaction/doesnotexist?cookie_check=1`, { headers: cookie ? { cookie } : {} });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("this login page is no longer valid");
    }
  });

  it("does not disturb a browser that keeps cookies", async () => {
    const browser = new RawBrowser();
    const first = await browser.get(authorizeUrl(p.issuer));
    const page = await browser.get(first.location!);
    expect(page.status).toBe(200);
    expect(page.headers.getSetCookie()).toEqual([]);
  });
});
