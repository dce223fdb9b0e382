import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleAsset } from "../../src/views/assets.ts";
import { createNonce, originOf, writePage, type PageHeaderOptions } from "../../src/views/page-headers.ts";
import { createViewEngine } from "../../src/views/view-engine.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { CHROMIUM_PATH as CHROMIUM, chromiumAvailable } from "../support/chromium.ts";
import { hostileCases, PLUGIN_STRINGS, TEXT, withTestPartial, type PageCase } from "./page-fixtures.ts";

/**
 * The pages in a real browser (Debian's chromium): hostile data leaves no element, attribute or
 * script of the attacker's even with the Content-Security-Policy switched off (escaping alone must
 * hold), and the pages' own scripts work under their real CSP (form_post submits, the top window
 * moves, the logout page continues after its frames).
 */
const haveChromium = chromiumAvailable("browser page suite");

const engine = withTestPartial(createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS }));

interface Served {
  html: string;
  headers: PageHeaderOptions | null;
}

/** A server that answers /page/<n> with the n-th registered page, and records every other request. */
async function startServer(): Promise<{
  server: Server;
  url: string;
  pages: Served[];
  requests: { method: string; url: string; body: string }[];
}> {
  const pages: Served[] = [];
  const requests: { method: string; url: string; body: string }[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    if (handleAsset(req, res)) return;
    const match = /^\/page\/(\d+)$/.exec(req.url ?? "");
    const served = match ? pages[Number(match[1])] : undefined;
    if (served) {
      if (served.headers) writePage(res, 200, served.html, served.headers);
      else {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(served.html);
      }
      return;
    }
    let body = "";
    for await (const chunk of req) body += String(chunk);
    requests.push({ method: req.method ?? "", url: req.url ?? "", body });
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<p>recorded</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pages, requests };
}

describe.skipIf(!haveChromium)("pages in Chromium", () => {
  let browser: Browser;
  let op: Awaited<ReturnType<typeof startServer>>;
  let client: Awaited<ReturnType<typeof startServer>>;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-background-networking"] });
    op = await startServer();
    // A second port is a second origin: the client.
    client = await startServer();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([op, client].map((s) => s && new Promise<void>((resolve) => s.server.close(() => resolve()))));
  });

  const serve = (html: string, headers: PageHeaderOptions | null) => {
    op.pages.push({ html, headers });
    return `${op.url}/page/${op.pages.length - 1}`;
  };

  /** A page that aborts every request outside our two servers and records dialogs and CSP reports. */
  const openPage = async (): Promise<{ page: Page; dialogs: string[]; violations: string[] }> => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    const violations: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) violations.push(message.text());
    });
    await page.route("**/*", (route) => {
      const url = route.request().url();
      return url.startsWith(op.url) || url.startsWith(client.url) ? route.continue() : route.abort();
    });
    return { page, dialogs, violations };
  };

  // Every hostile case except the repeats of the script-URL list, of which the spellings only a
  // browser's URL parser resolves are kept (escaping.test.ts runs them all on the HTML).
  const cases = hostileCases().filter((c) => !/^(url|redirect|action) /.test(c.label) || /\\t|\\u0001/.test(c.label));
  it.each(cases.map((c) => [c.view, c.label, c] as const))(
    "%s (%s): hostile data stays text without CSP",
    async (_view, _label, hostile: PageCase) => {
      // No nonce: the page's own scripts stay out, so the DOM can be read as rendered.
      const { nonce: _nonce, ...data } = hostile.data;
      const { page, dialogs } = await openPage();
      try {
        await page.goto(serve(engine.render(hostile.view, data, "en"), null));
        const found = await page.evaluate(() => {
          const all = [...document.querySelectorAll("*")];
          return {
            scripts: document.querySelectorAll("script").length,
            images: document.querySelectorAll("img").length,
            handlers: all.flatMap((el) => [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${el.tagName} ${a.name}`)),
            urls: [
              ...[...document.querySelectorAll("a")].map((a) => a.href),
              ...[...document.querySelectorAll("iframe")].map((f) => f.src),
              ...[...document.querySelectorAll("form")].map((f) => f.action),
            ],
            texts: [document.body.innerText, ...[...document.querySelectorAll("input, button")].map((i) => (i as HTMLInputElement).value)],
          };
        });
        expect(found.scripts).toBe(0);
        expect(found.images).toBe(0);
        expect(found.handlers).toEqual([]);
        for (const url of found.urls) expect(new URL(url).protocol).toMatch(/^(https?|about):$/);
        if (JSON.stringify(data).includes(JSON.stringify(TEXT).slice(1, -1))) {
          expect(found.texts.some((text) => text.includes(TEXT) || text === TEXT)).toBe(true);
        }
        await page.waitForTimeout(50);
        expect(dialogs).toEqual([]);
      } finally {
        await page.close();
      }
    },
  );

  it.each(cases.filter((c) => typeof c.data.nonce === "string").map((c) => [c.view, c.label, c] as const))(
    "%s (%s): the page's own script never runs the attacker's",
    async (_view, _label, hostile: PageCase) => {
      const { page, dialogs } = await openPage();
      try {
        await page.goto(serve(engine.render(hostile.view, hostile.data, "en"), null));
        await page.waitForTimeout(200);
        expect(dialogs).toEqual([]);
        expect(page.url()).not.toMatch(/^(javascript|data|vbscript):/i);
      } finally {
        await page.close();
      }
    },
  );

  it("form_post submits to the client under its CSP, with the fields as sent", async () => {
    const nonce = createNonce();
    const action = `${client.url}/cb`;
    const fields = [
      { name: "code", value: "c\"<&'`" },
      { name: "state", value: "s p a c e" },
    ];
    const url = serve(engine.render("form-post", { action, fields, nonce }, "en"), { nonce, formAction: [originOf(action)!] });
    const { page, violations } = await openPage();
    try {
      const posted = page.waitForRequest((request) => request.url() === action);
      await page.goto(url);
      const request = await posted;
      expect(request.method()).toBe("POST");
      expect(Object.fromEntries(new URLSearchParams(request.postData() ?? ""))).toEqual({ code: "c\"<&'`", state: "s p a c e" });
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("form_post is blocked by CSP when the client's origin is not listed", async () => {
    const nonce = createNonce();
    const url = serve(engine.render("form-post", { action: `${client.url}/blocked`, fields: [], nonce }, "en"), { nonce });
    const { page, violations } = await openPage();
    try {
      // The blocked submission keeps the page from reaching "load".
      await page.goto(url, { waitUntil: "commit" });
      await expect.poll(() => violations.join("\n"), { timeout: 20_000 }).toMatch(/form-action/);
      expect(client.requests.some((r) => r.url === "/blocked")).toBe(false);
    } finally {
      await page.close();
    }
  });

  it("top-redirect moves the window out of the iframe it runs in", async () => {
    const nonce = createNonce();
    const target = `${client.url}/done?code=abc&state=xyz`;
    const inner = serve(engine.render("top-redirect", { url: target, nonce }, "en"), { nonce, frameAncestors: [op.url] });
    const outer = serve(`<!DOCTYPE html><iframe src="${inner}"></iframe>`, null);
    const { page, violations } = await openPage();
    try {
      // Portal and provider share an origin here. Chromium lets a cross-origin frame move the top
      // window only after a user activation, which is why the page also has a target=_top link.
      await page.goto(outer);
      await page.waitForURL(target);
      expect(page.url()).toBe(target);
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("logged-out loads the front-channel frames, then continues to the client", async () => {
    const nonce = createNonce();
    const frontChannelUrls = [`${client.url}/fc?sid=1`, `${client.url}/fc?sid=2`];
    const postLogoutRedirectUri = `${client.url}/bye?state=s`;
    const url = serve(engine.render("logged-out", { frontChannelUrls, postLogoutRedirectUri, nonce }, "en"), {
      nonce,
      frameSrc: [client.url],
    });
    const { page, violations } = await openPage();
    try {
      await page.goto(url);
      await page.waitForURL(postLogoutRedirectUri);
      expect(
        client.requests
          .filter((r) => r.url.startsWith("/fc?"))
          .map((r) => r.url)
          .sort(),
      ).toEqual(["/fc?sid=1", "/fc?sid=2"]);
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("loads the stylesheet under the page CSP", async () => {
    const url = serve(engine.render("interaction-expired", {}, "en"), {});
    const { page, violations } = await openPage();
    try {
      await page.goto(url);
      const width = await page.evaluate(() => getComputedStyle(document.querySelector("main")!).maxWidth);
      expect(width).not.toBe("none");
      expect(violations).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
