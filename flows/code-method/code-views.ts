import { readFileSync } from "node:fs";

/** How the address field of a method's enrollment page is typed. */
export interface TargetField {
  /** `tel` or `email`: the keyboard phones show. */
  inputType: "tel" | "email";
  autocomplete: "tel" | "email";
}

const read = (name: string) => readFileSync(new URL(`./views/${name}.hbs`, import.meta.url), "utf8");
const SOURCES = { send: read("send"), code: read("code"), target: read("target"), confirm: read("confirm") };

/**
 * The page fragments of a code method (login: send, code; enrollment: target, confirm), with the
 * method's id in their UI-string keys. One set of templates serves SMS and e-mail; the view engine
 * checks at start-up that each method's i18n files have every key they name.
 */
export function codeMethodViews(methodId: string, field: TargetField): Record<string, string> {
  const fill = (source: string) =>
    source.replaceAll("%METHOD%", methodId).replaceAll("%INPUT_TYPE%", field.inputType).replaceAll("%AUTOCOMPLETE%", field.autocomplete);
  return Object.fromEntries(Object.entries(SOURCES).map(([view, source]) => [view, fill(source)]));
}
