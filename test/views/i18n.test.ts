import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { LANGS } from "../../src/i18n/lang.ts";
import { loadTranslations } from "../../src/views/load-translations.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { METHODS_DIR } from "../../src/runtime/method-plugins.ts";

const files = Object.fromEntries(
  LANGS.map((lang) => [lang, parse(readFileSync(join(VIEWS_DIR, "i18n", `${lang}.yaml`), "utf8")) as Record<string, string>]),
);
const en = files.en!;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("UI strings", () => {
  it.each(LANGS)("%s.yaml has exactly the keys of en.yaml", (lang) => {
    expect(Object.keys(files[lang]!).sort()).toEqual(Object.keys(en).sort());
  });

  it.each(LANGS)("%s.yaml has the placeholders of en.yaml in every string", (lang) => {
    for (const [key, text] of Object.entries(en)) expect(placeholders(files[lang]![key]!), key).toEqual(placeholders(text));
  });

  it.each(LANGS.filter((lang) => lang !== "en"))("%s.yaml is a translation, not a copy of English", (lang) => {
    const copied = Object.keys(en).filter((key) => files[lang]![key] === en[key]);
    expect(copied).toEqual(["app.name"]);
  });

  it("keeps simplified and traditional Chinese apart", () => {
    expect(files.cn!["login.title"]).toBe("登录");
    expect(files.tw!["login.title"]).toBe("登入");
    expect(files.cn!["account.not_enrolled"]).not.toBe(files.tw!["account.not_enrolled"]);
  });

  it("has the keys other parts of the provider use", () => {
    const needed = ["error.interaction_expired", "error.csrf", "error.login_failed"];
    for (const key of needed) expect(en, key).toHaveProperty([key]);
  });

  it("uses flat dotted keys with string values", () => {
    for (const lang of LANGS) {
      for (const [key, value] of Object.entries(files[lang]!)) {
        expect(key).toMatch(/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/);
        expect(typeof value).toBe("string");
      }
    }
  });

  it("loads every shipped factor plugin's strings, each with a label, under method.<id>.", () => {
    const pluginDirs = readdirSync(METHODS_DIR).filter((id) => existsSync(join(METHODS_DIR, id, "i18n")));
    expect(pluginDirs).toContain("password");
    const t = loadTranslations(
      join(VIEWS_DIR, "i18n"),
      pluginDirs.map((id) => ({ dir: join(METHODS_DIR, id, "i18n"), prefix: `method.${id}` })),
    );
    for (const id of pluginDirs) for (const lang of LANGS) expect(t.translate(lang, `method.${id}.label`), `${id} ${lang}`).not.toBe("");
  });

  it("refuses a plugin's strings that miss a language's key", () => {
    const dir = mkdtempSync(join(tmpdir(), "plugin-i18n-"));
    for (const lang of LANGS) writeFileSync(join(dir, `${lang}.yaml`), lang === "vn" ? "label: x\n" : "label: x\nhint: y\n");
    expect(() => loadTranslations(join(VIEWS_DIR, "i18n"), [{ dir, prefix: "method.demo" }])).toThrow(
      'vn.yaml: missing key "method.demo.hint"',
    );
  });

  it("fills placeholders and refuses unknown keys", () => {
    const t = loadTranslations(join(VIEWS_DIR, "i18n"));
    expect(t.translate("vn", "login.heading", { client: "App" })).toBe("Đăng nhập vào App");
    expect(t.translate("jp", "login.signed_in_as", { user: "{client}" })).toBe(
      "{client} としてサインインしています。続行するには、もう一度サインインしてください。",
    );
    expect(t.placeholders("login.signed_in_as")).toEqual(["user"]);
    expect(() => t.translate("en", "no.such")).toThrow('no UI string "no.such"');
  });
});
