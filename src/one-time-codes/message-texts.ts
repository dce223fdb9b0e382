import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { DEFAULT_LANG, isLang, LANGS, type Lang } from "../i18n/lang.ts";

/** The texts of a code message in one language: `message_text` ({code}, {minutes}), and `message_subject` for e-mail. */
export interface MessageTexts {
  text: string;
  subject?: string;
}

/**
 * The message texts of a code method in every UI language, from the plugin's own i18n/<lang>.yaml
 * (keys `message_text` and `message_subject`) — the same files as its page strings, so translators
 * find them in one place and the view engine checks their placeholders like any other string.
 */
export function loadMessageTexts(i18nDir: URL): Record<Lang, MessageTexts> {
  const texts = {} as Record<Lang, MessageTexts>;
  for (const lang of LANGS) {
    const table = parse(readFileSync(new URL(`${lang}.yaml`, i18nDir), "utf8")) as Record<string, string>;
    if (typeof table.message_text !== "string") throw new Error(`${i18nDir.pathname}${lang}.yaml: missing message_text`);
    texts[lang] = { text: table.message_text, subject: table.message_subject };
  }
  return texts;
}

/** A message text with {code} and {minutes} filled in, in the requested language (English when it is not one of ours). */
export function composeText(texts: Record<Lang, MessageTexts>, lang: unknown, values: { code: string; minutes: number }): MessageTexts {
  const chosen = texts[isLang(lang) ? lang : DEFAULT_LANG];
  const fill = (template: string) => template.replaceAll("{code}", values.code).replaceAll("{minutes}", String(values.minutes));
  return { text: fill(chosen.text), subject: chosen.subject === undefined ? undefined : fill(chosen.subject) };
}
