/**
 * The five UI languages of the SPEC's `lang` parameter, and how a request picks one: the `lang`
 * parameter, else `ui_locales` (OIDC Core §3.1.2.1, BCP 47 tags), else Accept-Language, else English.
 */
export type Lang = "cn" | "tw" | "en" | "jp" | "vn";

export const LANGS: readonly Lang[] = ["cn", "tw", "en", "jp", "vn"];

export const DEFAULT_LANG: Lang = "en";

/** The `<html lang>` value (BCP 47) of each UI language. */
export const HTML_LANG: Readonly<Record<Lang, string>> = {
  cn: "zh-Hans",
  tw: "zh-Hant",
  en: "en",
  jp: "ja",
  vn: "vi",
};

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && (LANGS as readonly string[]).includes(value);
}

/** The `<html lang>` value of a UI language. */
export function htmlLang(lang: Lang): string {
  return HTML_LANG[lang];
}

/**
 * Picks the UI language. `requested` is the `lang` parameter (one of the five codes) or a
 * `ui_locales` list (space-separated BCP 47 tags, the first supported one wins); when it names none
 * of ours, Accept-Language decides by q-value (ties in header order); the default is English.
 * Never throws, whatever the input.
 */
export function resolveLang(requested: string | undefined, acceptLanguage: string | undefined): Lang {
  if (requested !== undefined) {
    const trimmed = requested.trim().toLowerCase();
    if (isLang(trimmed)) return trimmed;
    for (const tag of requested.split(/\s+/)) {
      const lang = langOfTag(tag);
      if (lang) return lang;
    }
  }
  if (acceptLanguage !== undefined) {
    for (const tag of acceptedTags(acceptLanguage)) {
      const lang = langOfTag(tag);
      if (lang) return lang;
    }
  }
  return DEFAULT_LANG;
}

/** The UI language of one BCP 47 tag, or undefined when we have none for it. */
export function langOfTag(tag: string): Lang | undefined {
  const subtags = tag.trim().toLowerCase().replace(/_/g, "-").split("-");
  switch (subtags[0]) {
    case "en":
      return "en";
    case "ja":
      return "jp";
    case "vi":
      return "vn";
    case "zh":
      return chineseScript(subtags.slice(1));
    default:
      return undefined;
  }
}

// Script subtags decide; without one, the region does (Taiwan, Hong Kong, Macao write traditional).
function chineseScript(rest: string[]): Lang {
  if (rest.includes("hant")) return "tw";
  if (rest.includes("hans")) return "cn";
  if (rest.some((subtag) => subtag === "tw" || subtag === "hk" || subtag === "mo")) return "tw";
  return "cn";
}

const MAX_ACCEPT_LANGUAGE_ENTRIES = 32;

/** Accept-Language tags with q > 0, highest q first, header order among equals; `*` is dropped. */
function acceptedTags(header: string): string[] {
  const entries: { tag: string; q: number; index: number }[] = [];
  const parts = header.split(",", MAX_ACCEPT_LANGUAGE_ENTRIES);
  parts.forEach((part, index) => {
    const [rawTag, ...params] = part.split(";");
    const tag = (rawTag ?? "").trim();
    if (tag === "" || tag === "*") return;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (match) q = Number(match[1]);
    }
    if (!Number.isFinite(q) || q <= 0) return;
    entries.push({ tag, q, index });
  });
  entries.sort((a, b) => b.q - a.q || a.index - b.index);
  return entries.map((entry) => entry.tag);
}
