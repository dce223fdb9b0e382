import { htmlLang, type Lang } from "../i18n/lang.ts";

/** A date as a page shows it: machine-readable for `<time datetime>`, and in the page's language. */
export interface ShownDate {
  /** yyyy-mm-dd (UTC). */
  iso: string;
  /** E.g. "25 Nov 2026", "2026年11月25日" (UTC, the server knows no user's time zone). */
  text: string;
}

const formats = new Map<Lang, Intl.DateTimeFormat>();

export function formatDate(epochMs: number, lang: Lang): ShownDate {
  let format = formats.get(lang);
  if (!format) {
    format = new Intl.DateTimeFormat(htmlLang(lang), { dateStyle: "medium", timeZone: "UTC" });
    formats.set(lang, format);
  }
  const date = new Date(epochMs);
  return { iso: date.toISOString().slice(0, 10), text: format.format(date) };
}
