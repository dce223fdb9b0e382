import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { Parser, tokenizer } from "acorn";
import { describe, expect, it } from "vitest";
import { loginErrorScript, loginScript } from "../../../src/extensions/custom-login/script/login-script.ts";

/**
 * The LoginJs bodies as JavaScript: values that would end a <script> element or a pre-ES2019 string
 * literal come back intact when the script runs, and the libraries stay ES5 (they run on any page).
 */
const HOSTILE = "</script><script>alert(1)</script> <!-- \u2028line\u2029para & \"quoted\" 'single' \\ ";
const LIBRARIES = ["acme-sso.js", "acme-sso-error.js"].map((name) => ({
  name,
  source: readFileSync(new URL(`../../../src/extensions/custom-login/script/${name}`, import.meta.url), "utf8"),
}));

function session(): Record<string, unknown> {
  return {
    sessionId: `id-${HOSTILE}`,
    binding: `binding-${HOSTILE}`,
    qrUri: `https://op.example/connect/authorize?state=${HOSTILE}`,
    qrImage: "data:image/svg+xml;base64,PHN2Zy8+",
    expiresIn: 120,
    statusUrl: "https://op.example/Acme/CustomLogin/Status",
    renewUrl: "https://op.example/Acme/CustomLogin/Renew",
    authorizeUrl: "https://op.example/Acme/CustomLogin/Authorize",
    pcAuthorize: { client_id: "demo-web", redirect_uri: "https://rp.example/pc", scope: "openid", response_type: "code", state: HOSTILE },
    prompts: { scanPrompt: `scan ${HOSTILE}`, s0Prompt: "s0", s5Prompt: "s5", sn10Prompt: "sn10", s10Prompt: "s10" },
    lang: "en",
  };
}

/** A jQuery that records every call made on it or on what it returns (every selection has one element). */
function recordingJQuery(): { $: unknown; calls: [string, unknown[]][] } {
  const calls: [string, unknown[]][] = [];
  const element = {};
  const selection: object = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (name === "length") return 1;
        if (name === "0") return element;
        return (...args: unknown[]) => {
          calls.push([String(name), args]);
          return selection;
        };
      },
    },
  );
  const $ = Object.assign(
    (...args: unknown[]) => {
      calls.push(["$", args]);
      return selection;
    },
    {
      ajax: (settings: unknown) => calls.push(["ajax", [settings]]),
    },
  );
  return { $, calls };
}

describe("loginScript", () => {
  it("keeps </script>, <!-- and the line separators out of the script text", () => {
    const script = loginScript(session());
    expect(script.slice(script.indexOf("var SESSION"), script.indexOf(";\n"))).not.toMatch(/[<>&\u2028\u2029]/);
    expect(script.toLowerCase()).not.toContain("</script");
    expect(script.startsWith("(function (window) {\nvar SESSION = {")).toBe(true);
    expect(script.endsWith("})(window);\n")).toBe(true);
  });

  it("gives the library the session's values unchanged when it runs", () => {
    const { $, calls } = recordingJQuery();
    const window: Record<string, unknown> = { jQuery: $, document: { getElementById: () => null } };
    runInNewContext(loginScript(session()), { window });
    new (window.AcmeSSO as new (selector: string) => unknown)("#qr");

    const expected = session();
    expect(calls).toContainEqual(["attr", [{ src: expected.qrImage, "data-uri": expected.qrUri }]]);
    expect(calls).toContainEqual(["text", [`scan ${HOSTILE}`]]);
    const ajax = calls.find(([name]) => name === "ajax")?.[1][0] as { url: string; data: Record<string, string> };
    expect(ajax.url).toBe(expected.statusUrl);
    expect(ajax.data).toEqual({ session_id: expected.sessionId, binding: expected.binding, seen: "waiting" });
  });

  it("defines nothing on the page but window.AcmeSSO", () => {
    const window: Record<string, unknown> = {};
    const context: Record<string, unknown> = { window };
    runInNewContext(loginScript(session()), context);
    expect(Object.keys(window)).toEqual(["AcmeSSO"]);
    expect(Object.keys(context)).toEqual(["window"]);
  });
});

describe("loginErrorScript", () => {
  it("logs the message and writes it, unchanged, as the container's text without jQuery", () => {
    const logged: unknown[][] = [];
    const container = { className: "page-own", textContent: "" };
    const selectors: string[] = [];
    const window: Record<string, unknown> = {
      console: { error: (...args: unknown[]) => logged.push(args) },
      document: {
        querySelector: (selector: string) => {
          selectors.push(selector);
          return container;
        },
      },
    };
    const script = loginErrorScript(HOSTILE);
    expect(script.toLowerCase()).not.toContain("</script");
    runInNewContext(script, { window });
    expect(logged).toEqual([[`AcmeSSO: ${HOSTILE}`]]);

    new (window.AcmeSSO as new (selector: string) => unknown)("#qr");
    expect(selectors).toEqual(["#qr"]);
    expect(container).toEqual({ className: "page-own acme-sso acme-sso-error", textContent: HOSTILE });
  });

  it("writes the message with jQuery's .text() when the page has jQuery", () => {
    const { $, calls } = recordingJQuery();
    const window: Record<string, unknown> = {
      jQuery: Object.assign($ as object, { fn: { text: () => undefined } }),
      document: {},
      console: { error: () => undefined },
    };
    runInNewContext(loginErrorScript(HOSTILE), { window });
    new (window.AcmeSSO as new (selector: string) => unknown)("#qr");
    expect(calls).toContainEqual(["find", ["#qr"]]);
    expect(calls).toContainEqual(["text", [HOSTILE]]);
    expect(calls.some(([name]) => name === "html")).toBe(false);
  });
});

describe.each(LIBRARIES)("$name", ({ source }) => {
  it("is ES5: it parses as ECMAScript 5 and names no later global", () => {
    // The libraries are function bodies (the LoginJs wrapper adds the function around them).
    expect(() => Parser.parse(source, { ecmaVersion: 5, allowReturnOutsideFunction: true })).not.toThrow();
    const names = [...tokenizer(source, { ecmaVersion: 5, allowReturnOutsideFunction: true })]
      .filter((t) => t.type.label === "name")
      .map((t) => source.slice(t.start, t.end));
    expect(
      names.filter((name) =>
        ["Promise", "fetch", "Symbol", "Map", "Set", "WeakMap", "URL", "URLSearchParams", "requestAnimationFrame"].includes(name),
      ),
    ).toEqual([]);
  });
});
