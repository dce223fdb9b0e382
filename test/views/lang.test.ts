import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { htmlLang, LANGS, resolveLang } from "../../src/i18n/lang.ts";

describe("resolveLang", () => {
  it.each([
    // the lang parameter
    ["cn", undefined, "cn"],
    ["tw", "en", "tw"],
    ["en", "zh-CN", "en"],
    ["jp", undefined, "jp"],
    ["vn", undefined, "vn"],
    ["JP", undefined, "jp"],
    // ui_locales lists: the first tag we support wins
    ["zh-CN", undefined, "cn"],
    ["zh-Hans", undefined, "cn"],
    ["zh-SG", undefined, "cn"],
    ["zh", undefined, "cn"],
    ["zh-TW", undefined, "tw"],
    ["zh-Hant", undefined, "tw"],
    ["zh-HK", undefined, "tw"],
    ["zh-MO", undefined, "tw"],
    ["zh-Hant-CN", undefined, "tw"],
    ["zh-Hans-HK", undefined, "cn"],
    ["zh_TW", undefined, "tw"],
    ["ja", undefined, "jp"],
    ["ja-JP", undefined, "jp"],
    ["vi-VN", undefined, "vn"],
    ["en-GB", undefined, "en"],
    ["fr-CA de ja", undefined, "jp"],
    ["  fr   vi  ", undefined, "vn"],
    ["fr", "zh-TW", "tw"],
    ["", "ja", "jp"],
    // Accept-Language with q-values
    [undefined, "ja", "jp"],
    [undefined, "fr;q=0.9, vi;q=0.8, en;q=0.7", "vn"],
    [undefined, "en;q=0.5, zh-TW;q=0.9", "tw"],
    [undefined, "zh-CN, zh;q=0.9, en;q=0.8", "cn"],
    [undefined, "en;q=0.8, ja;q=0.8", "en"],
    [undefined, "ja;q=0, vi", "vn"],
    [undefined, "*", "en"],
    [undefined, "de-DE, fr;q=0.5", "en"],
    [undefined, "ja;q=abc", "jp"],
    [undefined, " , ;q=1, ", "en"],
    // default
    [undefined, undefined, "en"],
    ["xx", undefined, "en"],
  ] as const)("resolveLang(%j, %j) is %s", (requested, acceptLanguage, expected) => {
    expect(resolveLang(requested, acceptLanguage)).toBe(expected);
  });

  it("never throws and always answers one of the five", () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }), (requested, accept) => {
        expect(LANGS).toContain(resolveLang(requested, accept));
      }),
    );
  });

  it("gives the html lang of each language", () => {
    expect(LANGS.map(htmlLang)).toEqual(["zh-Hans", "zh-Hant", "en", "ja", "vi"]);
  });
});
