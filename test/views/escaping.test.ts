import { describe, expect, it } from "vitest";
import { LANGS } from "../../src/i18n/lang.ts";
import { createViewEngine, safeUrl, scriptJson } from "../../src/views/view-engine.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { BREAKOUT_URL, hostileCases, NONCE, ORDINARY, PLUGIN_STRINGS, SCRIPT_URLS, withTestPartial } from "./page-fixtures.ts";

/**
 * Every reflected value must come out as text: hostile values (markup, both quotes, backticks, `=`,
 * script URLs, a URL that ends a script element) go through every field of every page in every
 * language, and the output is checked tag by tag. test/views/escaping-in-browser.test.ts checks the
 * same pages in Chromium.
 */
const engine = withTestPartial(createViewEngine({ viewsDir: VIEWS_DIR, strings: PLUGIN_STRINGS }));

// Attributes our templates write; an injected attribute (onclick=…, src=…) is anything else.
const ATTRIBUTES = new Set([
  "lang",
  "charset",
  "http-equiv",
  "content",
  "name",
  "rel",
  "href",
  "class",
  "id",
  "method",
  "action",
  "target",
  "type",
  "value",
  "role",
  "for",
  "src",
  "title",
  "aria-hidden",
  "tabindex",
  "nonce",
  "sizes",
  "aria-label",
  "datetime",
]);
const TAGS = new Set([
  "html",
  "head",
  "meta",
  "title",
  "link",
  "body",
  "main",
  "footer",
  "h1",
  "h2",
  "p",
  "div",
  "section",
  "form",
  "input",
  "button",
  "ul",
  "li",
  "a",
  "label",
  "noscript",
  "iframe",
  "script",
  "span",
  "img",
  "video",
  "canvas",
  "strong",
  "pre",
  "nav",
  "dl",
  "dt",
  "dd",
  "time",
]);
const URL_ATTRIBUTES = new Set(["href", "src", "action"]);

function decode(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Every start tag is one of ours, with well-formed, known attributes; returns the tags. */
function checkTags(html: string): { tag: string; attributes: Map<string, string> }[] {
  const tags: { tag: string; attributes: Map<string, string> }[] = [];
  const withoutScripts = html.replace(/(<script nonce="[^"]*">)[\s\S]*?<\/script>/g, "$1</script>");
  for (const match of withoutScripts.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)) {
    const tag = match[1]!.toLowerCase();
    expect(TAGS, `tag <${tag}>`).toContain(tag);
    const rest = match[2]!;
    expect(rest, `attributes of <${tag}>`).toMatch(/^(\s+[a-z-]+(="[^"<>`']*")?)*\s*$/);
    const attributes = new Map<string, string>();
    for (const attribute of rest.matchAll(/([a-z-]+)(?:="([^"]*)")?/g)) {
      expect(ATTRIBUTES, `attribute ${attribute[1]} of <${tag}>`).toContain(attribute[1]);
      attributes.set(attribute[1]!, decode(attribute[2] ?? ""));
    }
    tags.push({ tag, attributes });
  }
  return tags;
}

function scriptsOf(html: string): string[] {
  return [...html.matchAll(/<script nonce="([^"]*)">([\s\S]*?)<\/script>/g)].map((m) => m[2]!);
}

const cases = hostileCases();

describe.each(LANGS)("hostile values in %s", (lang) => {
  it.each(cases.map((c) => [c.view, c.label, c] as const))("%s (%s) comes out escaped and inert", (_view, _label, page) => {
    const html = engine.render(page.view, page.data, lang);
    const tags = checkTags(html);

    // No markup of the attacker's survives as markup.
    expect(html).not.toMatch(/<script>|<img|onerror=|onclick=|onmouseover=|<!--/i);
    expect(html).not.toContain("`");
    expect(html.match(/<script/g)?.length ?? 0).toBe(tags.filter((t) => t.tag === "script").length);
    // Inline scripts carry a nonce; a script file (the diagram page's mermaid) a nonce and a src.
    for (const script of tags.filter((t) => t.tag === "script"))
      expect([["nonce"], ["nonce", "src"]]).toContainEqual([...script.attributes.keys()]);

    // No link, frame or form leads to script.
    for (const { attributes } of tags) {
      for (const [name, value] of attributes) {
        if (!URL_ATTRIBUTES.has(name)) continue;
        const scheme = new URL(value, "https://op.example/").protocol;
        expect(["https:", "about:"], `${name}="${value}"`).toContain(scheme);
      }
    }

    // Inline scripts: only our text, the URL as one JSON string that cannot end the element.
    for (const script of scriptsOf(html)) {
      expect(script).not.toMatch(/<\/script|<!--|<script/i);
      const embedded = /(?:href = |var url = )(".*?");/.exec(script);
      if (embedded) {
        const url = JSON.parse(embedded[1]!) as string;
        expect([BREAKOUT_URL, "about:blank"]).toContain(url);
      }
    }
  });
});

describe("safeUrl", () => {
  it.each(
    SCRIPT_URLS.concat([
      "JAVASCRIPT:alert(1)",
      "javascript\n:alert(1)",
      "\u0000javascript:alert(1)",
      "blob:https://x/1",
      "file:///etc/passwd",
      "",
      "http://[::1",
    ]),
  )("makes %j inert", (url) => {
    expect(safeUrl(url)).toBe("about:blank");
  });

  it.each([
    "https://client.example/cb?x=1",
    "http://localhost:3000/cb",
    "/interaction/abc",
    "com.example.app:/cb",
    "acmeauth://sso/oidc?x=1",
  ])("keeps %j", (url) => {
    expect(safeUrl(url)).toBe(url);
  });

  it("makes anything but a string inert", () => {
    expect(safeUrl(undefined)).toBe("about:blank");
    expect(safeUrl({ toString: () => "https://x" })).toBe("about:blank");
  });
});

describe("scriptJson", () => {
  it("cannot end a script element or a string early, and still parses to the value", () => {
    const value = `</script><!--<script>\u2028\u2029&"'`;
    const json = scriptJson(value);
    expect(json).not.toMatch(/[<>&`'\u2028\u2029]/);
    expect(JSON.parse(json)).toBe(value);
    // eslint-disable-next-line no-new-func
    expect(new Function(`return ${json};`)()).toBe(value);
  });
});

describe("templates", () => {
  it("render the ordinary cases through the same tag check", () => {
    for (const page of ORDINARY) checkTags(engine.render(page.view, page.data, "en"));
  });

  it("keep the nonce in attributes only", () => {
    const html = engine.render("form-post", { action: "https://c.example/", fields: [], nonce: NONCE }, "en");
    expect(html).toContain(`<script nonce="${NONCE}">`);
  });
});
