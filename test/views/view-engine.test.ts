import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HTML_LANG, LANGS } from "../../src/i18n/lang.ts";
import { createViewEngine } from "../../src/views/view-engine.ts";
import { ViewSetupError } from "../../src/views/view-setup-error.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { hostileCases, ORDINARY, PLUGIN_STRINGS, withTestPartial } from "./page-fixtures.ts";

const engine = withTestPartial(createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS }));
const EN_KEYS = Object.keys(readYamlKeys("en"));

function readYamlKeys(lang: string): Record<string, true> {
  const keys: Record<string, true> = {};
  for (const line of readFileSync(join(VIEWS_DIR, "i18n", `${lang}.yaml`), "utf8").split("\n")) {
    const match = /^([a-z0-9_.-]+):/.exec(line);
    if (match) keys[match[1]!] = true;
  }
  return keys;
}

describe("pages", () => {
  it("has ordinary and hostile test data for every page", () => {
    expect(engine.views).toEqual([
      "account",
      "account-remove",
      "diagram",
      "diagrams",
      "enroll",
      "error",
      "form-post",
      "interaction-expired",
      "logged-out",
      "login",
      "logout-confirm",
      "top-redirect",
    ]);
    expect(new Set(ORDINARY.map((c) => c.view))).toEqual(new Set(engine.views));
    expect(new Set(hostileCases().map((c) => c.view))).toEqual(new Set(engine.views));
  });

  describe.each(LANGS)("in %s", (lang) => {
    it.each(ORDINARY.map((c) => [c.view, c.label, c] as const))("renders %s (%s) with every string translated", (_view, _label, page) => {
      const html = engine.render(page.view, page.data, lang);
      expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="/);
      expect(html).toContain(`<html lang="${HTML_LANG[lang]}">`);
      expect(html).toContain(`<title>${escapeText(engine.translate(lang, `${page.view}.title`))} · Portcullis</title>`);
      expect(html).toContain('<link rel="stylesheet" href="/assets/portcullis.css">');
      expect(html).not.toMatch(/undefined|\[object Object\]/);
      // No key shown in place of its text.
      for (const key of EN_KEYS) expect(html).not.toContain(`>${key}<`);
      if (lang !== "en") expect(html).not.toBe(engine.render(page.view, page.data, "en"));
    });
  });

  it("shows the application, the signed-in notice, the error and the method on the login page", () => {
    const html = engine.render("login", ORDINARY.find((c) => c.label.startsWith("re-login"))!.data, "en");
    expect(html).toContain("<h1>Sign in to Demo App</h1>");
    expect(html).toContain("You are signed in as alice. Sign in again to continue.");
    expect(html).toContain('<div class="error-box" role="alert">The user name or password is incorrect.</div>');
    expect(html).toContain('<input id="username" name="username" value="alice">');
    expect(html).toContain('<input type="hidden" name="event" value="CHOOSE_METHOD">');
    expect(html).toContain('<button type="submit" class="button secondary" name="method" value="totp">Password</button>');
    expect(html.match(/<input type="hidden" name="csrf" value="csrf-token">/g)).toHaveLength(2);
  });

  it("omits the notice, the error box and the method list when not asked for", () => {
    const html = engine.render("login", ORDINARY.find((c) => c.label === "password step")!.data, "en");
    expect(html).not.toContain("notice");
    expect(html).not.toContain("error-box");
    expect(html).not.toContain("CHOOSE_METHOD");
  });

  it("posts the form_post response with a nonce'd auto-submit and a noscript button", () => {
    const html = engine.render("form-post", ORDINARY[2]!.data, "en");
    expect(html).toContain('<form id="form-post" method="post" action="https://client.example/cb">');
    expect(html).toContain('<input type="hidden" name="code" value="abc">');
    expect(html).toContain('<input type="hidden" name="iss" value="https://op.example">');
    expect(html).toContain(`<script nonce="bm9uY2Utbm9uY2Utbm9uY2U">document.getElementById("form-post").submit();</script>`);
    expect(html).toMatch(/<noscript>.*<button type="submit" class="button">Continue<\/button>.*<\/noscript>/s);
  });

  it("targets the top window from an iframe, and shows the button when there is no script", () => {
    const html = engine.render("form-post", ORDINARY[3]!.data, "en");
    expect(html).toContain('action="https://client.example/cb" target="_top">');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<noscript>");
    expect(html).toContain('<button type="submit" class="button">Continue</button>');
  });

  it("sends the top window to the redirect, with a target=_top link as fallback", () => {
    const html = engine.render("top-redirect", ORDINARY[4]!.data, "en");
    expect(html).toContain(
      'window.top.location.href = "https://client.example/cb?code=abc\\u0026state=xyz\\u0026iss=https%3A%2F%2Fop.example";',
    );
    expect(html).toContain(
      'href="https://client.example/cb?code&#x3D;abc&amp;state&#x3D;xyz&amp;iss&#x3D;https%3A%2F%2Fop.example" target="_top"',
    );
  });

  it("asks before logging out: csrf, confirm=yes, and a cancel", () => {
    const withClient = engine.render("logout-confirm", ORDINARY[7]!.data, "en");
    expect(withClient).toContain("<h1>Do you want to sign out?</h1>");
    expect(withClient).toContain("Demo App asked to sign you out.");
    expect(withClient).toContain('<form method="post" action="/connect/endsession" class="actions">');
    expect(withClient).toContain('<input type="hidden" name="csrf" value="csrf-token">');
    expect(withClient).toContain('name="confirm" value="yes"');
    expect(withClient).toContain('name="confirm" value="no"');
    const withCancel = engine.render("logout-confirm", ORDINARY[8]!.data, "en");
    expect(withCancel).toContain('<a class="button secondary" href="https://client.example/">Stay signed in</a>');
    expect(withCancel).not.toContain('value="no"');
  });

  it("loads each front-channel logout URL in a hidden frame and then continues", () => {
    const html = engine.render("logged-out", ORDINARY[10]!.data, "en");
    expect(html.match(/<iframe class="logout-frame" src="[^"]+" title="" aria-hidden="true" tabindex="-1"><\/iframe>/g)).toHaveLength(2);
    expect(html).toContain('src="https://a.example/logout?iss&#x3D;x&amp;sid&#x3D;1"');
    expect(html).toContain('<a id="continue" class="button" href="https://client.example/bye?state&#x3D;s">Continue</a>');
    expect(html).toContain('var url = "https://client.example/bye?state=s";');
    expect(html).toContain("setTimeout(go, 3000)");
    const none = engine.render("logged-out", ORDINARY[9]!.data, "en");
    expect(none).toContain("You can close this window now.");
    expect(none).not.toContain("<iframe");
    expect(none).not.toContain("<script");
  });

  it("shows the error code and description, or a translated description", () => {
    const html = engine.render("error", ORDINARY[0]!.data, "en");
    expect(html).toContain("<h1>Something went wrong</h1>");
    expect(html).toContain("<p>redirect_uri is not registered for this client</p>");
    expect(html).toContain('<p class="error-code">Error code: invalid_request</p>');
    expect(engine.render("error", ORDINARY[1]!.data, "tw")).toContain("此登入連結已失效");
  });
});

describe("createViewEngine", () => {
  it("throws for an unknown view or language", () => {
    expect(() => engine.render("nope", {}, "en")).toThrow('unknown view "nope"');
    expect(() => engine.render("error", {}, "fr" as never)).toThrow('unknown language "fr"');
  });

  it("throws for an unknown method partial or a translation key that does not exist", () => {
    const data = { ...ORDINARY[5]!.data };
    expect(() => engine.render("login", { ...data, methodPartial: "method-nope" }, "en")).toThrow(/method-nope/);
    expect(() => engine.render("login", { ...data, errorKey: "<script>" }, "en")).toThrow('no UI string "<script>"');
  });

  it("escapes values put into a UI string", () => {
    expect(engine.translate("en", "login.heading", { client: "<b>" })).toBe("Sign in to <b>");
    expect(engine.render("login", { ...ORDINARY[5]!.data, clientName: "<b>" }, "en")).toContain("<h1>Sign in to &lt;b&gt;</h1>");
    expect(() => engine.translate("en", "login.heading")).toThrow("needs a value for {client}");
  });

  describe("registerPartial", () => {
    it("compiles a plugin's partial at once and renders it inside the login page", () => {
      const local = createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS });
      local.registerPartial("method-demo", `<p class="demo">{{t "method.password.label"}} {{method.address}}</p>`);
      const html = local.render(
        "login",
        { clientName: "A", csrf: "c", action: "/i", methodPartial: "method-demo", method: { address: "a@b" } },
        "vn",
      );
      expect(html).toContain('<p class="demo">Mật khẩu a@b</p>');
    });

    it.each([
      ["a syntax error", "method-a", "{{#if x}}unclosed", /method-a.*Parse error/],
      ["raw HTML output", "method-b", "{{{method.html}}}", /unescaped output/],
      ["an unknown UI string", "method-c", '{{t "password.nope"}}', /missing UI string "password.nope"/],
      ["a missing placeholder value", "method-d", '{{t "login.heading"}}', /must pass exactly \{client\}/],
      ["json outside a script", "method-e", '<a title="{{json x}}">', /json .*only inside <script>/],
      ["an unknown partial", "method-f", "{{> nope}}", /unknown partial "nope"/],
    ])("refuses %s", (_label, name, source, message) => {
      const local = createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS });
      expect(() => local.registerPartial(name, source)).toThrow(ViewSetupError);
      expect(() => local.registerPartial(name, source)).toThrow(message);
    });

    it("refuses a bad or duplicate name", () => {
      const local = createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS });
      expect(() => local.registerPartial("Method/../x", "x")).toThrow("not a partial name");
      expect(() => local.registerPartial("csrf-field", "x")).toThrow('partial "csrf-field" is already registered');
    });
  });

  describe("start-up", () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });
    const copyViews = () => {
      dir = mkdtempSync(join(tmpdir(), "portcullis-views-"));
      cpSync(VIEWS_DIR, dir, { recursive: true });
      return dir;
    };

    it("reads templates once: a changed file does not change a running engine", () => {
      const views = copyViews();
      const local = createViewEngine({ viewsDir: views });
      const before = local.render("interaction-expired", {}, "en");
      writeFileSync(join(views, "pages", "interaction-expired.hbs"), "changed");
      expect(local.render("interaction-expired", {}, "en")).toBe(before);
    });

    it("lists every template problem at once, naming file and key", () => {
      const views = copyViews();
      writeFileSync(join(views, "pages", "broken.hbs"), '{{t "nope.key"}}\n{{{raw}}}\n');
      writeFileSync(join(views, "partials", "bad.hbs"), "{{#each}}");
      let error: unknown;
      try {
        createViewEngine({ viewsDir: views });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ViewSetupError);
      const problems = (error as ViewSetupError).problems.join("\n");
      expect(problems).toContain('views/pages/broken.hbs:1: missing UI string "nope.key"');
      expect(problems).toContain("views/pages/broken.hbs:2: unescaped output");
      expect(problems).toContain('views/pages/broken.hbs: missing UI string "broken.title"');
      expect(problems).toMatch(/views\/partials\/bad.hbs: /);
    });

    it("fails when a language misses a key, naming file and key", () => {
      const views = copyViews();
      const file = join(views, "i18n", "vn.yaml");
      writeFileSync(file, readFileSync(file, "utf8").replace(/^login\.other_methods:.*$/m, ""));
      expect(() => createViewEngine({ viewsDir: views })).toThrow('vn.yaml: missing key "login.other_methods"');
    });

    it("fails when a language has other placeholders than English", () => {
      const views = copyViews();
      const file = join(views, "i18n", "jp.yaml");
      writeFileSync(file, readFileSync(file, "utf8").replace("{client} にサインイン", "{app} にサインイン"));
      expect(() => createViewEngine({ viewsDir: views })).toThrow(
        'jp.yaml: key "login.heading" has placeholders {app} but en.yaml has {client}',
      );
    });

    it("uses the given assets URL for the stylesheet", () => {
      const local = createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS, assetsUrl: "/sso/assets/" });
      expect(local.render("interaction-expired", {}, "en")).toContain('href="/sso/assets/portcullis.css"');
    });
  });
});

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
