import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import Handlebars from "handlebars";
import { checkTemplate } from "./check-template.ts";
import { htmlLang, isLang, type Lang } from "../i18n/lang.ts";
import { loadTranslations, type StringSource, type Translations } from "./load-translations.ts";
import { ViewSetupError } from "./view-setup-error.ts";

/**
 * The server-rendered pages: Handlebars pages (views/pages/<view>.hbs) rendered inside the layout
 * (views/layouts/main.hbs), with the shared partials (views/partials/<name>.hbs) and the UI strings
 * of views/i18n/. Everything is read, checked and compiled once, when the engine is created; a
 * request only runs compiled functions. See views/README.md for every page's data contract.
 *
 * Helpers available to every template:
 * - `{{t "key"}}`, `{{t "key" name=value}}`: the UI string in the page's language, `{name}` filled in;
 *   the result is HTML-escaped like any `{{…}}` output.
 * - `{{safeUrl value}}`: the URL unchanged, or `about:blank` when it would run script
 *   (javascript:, vbscript:, data:, …); use it for every href, src and action taken from data.
 * - `{{json value}}`: the value as JSON that is safe inside `<script>` (`<`, `>`, `&`, quotes,
 *   backtick, U+2028/9 escaped); refused at start-up anywhere outside a script element.
 */
export interface ViewEngine {
  /** The page names (views/pages/*.hbs without the extension). */
  readonly views: readonly string[];
  /** The full HTML of a page; throws for an unknown view or language. */
  render(view: string, data: Record<string, unknown>, lang: Lang): string;
  /** Adds a partial (a factor plugin's view, e.g. "method-password"), compiled and checked now. */
  registerPartial(name: string, source: string): void;
  /** A UI string outside a template (same rules as `{{t}}`, not escaped). */
  translate(lang: Lang, key: string, params?: Record<string, unknown>): string;
}

export interface ViewEngineOptions {
  viewsDir: string;
  /** Where the stylesheet is served, relative to the issuer's host (default "/assets"). */
  assetsUrl?: string;
  /** More UI strings: the factor plugins' i18n/ folders, each under its own key prefix. */
  strings?: readonly StringSource[];
}

type Template = Handlebars.TemplateDelegate;

const PARTIAL_NAME = /^[a-z][a-z0-9-]*$/;
// Schemes that make a link, frame or form run script or open local content.
const UNSAFE_SCHEMES = new Set(["javascript:", "vbscript:", "data:", "blob:", "file:", "filesystem:"]);
const COMPILE_OPTIONS: CompileOptions = {
  preventIndent: true,
  knownHelpers: { t: true, safeUrl: true, json: true },
};

export function createViewEngine(options: ViewEngineOptions): ViewEngine {
  const { viewsDir } = options;
  const assetsUrl = (options.assetsUrl ?? "/assets").replace(/\/+$/, "");
  const translations = loadTranslations(join(viewsDir, "i18n"), options.strings);
  const hbs = Handlebars.create();
  registerHelpers(hbs, translations);

  const problems: string[] = [];
  const referenced: { file: string; partial: string }[] = [];
  const compileFile = (file: string, allowUnescaped: boolean): Template | undefined => {
    const label = file.slice(viewsDir.length).replace(/^[\\/]+/, "views/");
    const result = compileChecked(hbs, readFileSync(file, "utf8"), label, translations, allowUnescaped);
    problems.push(...result.problems);
    for (const partial of result.partials) referenced.push({ file: label, partial });
    return result.template;
  };

  const partialNames = new Set<string>();
  for (const file of hbsFiles(join(viewsDir, "partials"))) {
    const name = basename(file, ".hbs");
    const template = compileFile(file, false);
    partialNames.add(name);
    if (template) hbs.registerPartial(name, template);
  }

  const pages = new Map<string, Template>();
  for (const file of hbsFiles(join(viewsDir, "pages"))) {
    const view = basename(file, ".hbs");
    const template = compileFile(file, false);
    if (template) pages.set(view, template);
    if (!translations.has(titleKey(view))) problems.push(`views/pages/${view}.hbs: missing UI string "${titleKey(view)}" (the page title)`);
  }
  const layout = compileFile(join(viewsDir, "layouts", "main.hbs"), true);

  for (const { file, partial } of referenced) {
    if (!partialNames.has(partial)) problems.push(`${file}: unknown partial "${partial}"`);
  }
  if (problems.length > 0 || !layout) throw new ViewSetupError(problems);

  return {
    views: [...pages.keys()].sort(),

    render(view, data, lang) {
      const page = pages.get(view);
      if (!page) throw new Error(`unknown view "${view}"`);
      if (!isLang(lang)) throw new Error(`unknown language "${String(lang)}"`);
      const runtime = { data: { lang } };
      const body = page(data, runtime);
      return layout({ body, view, titleKey: titleKey(view), htmlLang: htmlLang(lang), assetsUrl }, runtime);
    },

    registerPartial(name, source) {
      if (!PARTIAL_NAME.test(name)) throw new Error(`not a partial name: ${JSON.stringify(name)} (lowercase, digits, '-')`);
      if (partialNames.has(name)) throw new Error(`partial "${name}" is already registered`);
      const result = compileChecked(hbs, source, `partial ${name}`, translations, false);
      for (const partial of result.partials) {
        if (!partialNames.has(partial) && partial !== name) result.problems.push(`partial ${name}: unknown partial "${partial}"`);
      }
      if (result.problems.length > 0 || !result.template) throw new ViewSetupError(result.problems);
      partialNames.add(name);
      hbs.registerPartial(name, result.template);
    },

    translate: (lang, key, params) => translations.translate(lang, key, params),
  };
}

/** The UI string that titles a page: "<view>.title". */
function titleKey(view: string): string {
  return `${view}.title`;
}

function hbsFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".hbs"))
    .sort()
    .map((name) => join(dir, name));
}

/** Parses, checks and compiles one template now (Handlebars.compile alone would defer to first use). */
function compileChecked(
  hbs: typeof Handlebars,
  source: string,
  file: string,
  translations: Translations,
  allowUnescaped: boolean,
): { template?: Template; problems: string[]; partials: string[] } {
  let ast: hbs.AST.Program;
  try {
    ast = hbs.parse(source);
  } catch (error) {
    return { problems: [`${file}: ${oneLine((error as Error).message)}`], partials: [] };
  }
  const check = checkTemplate(ast, { file, translations, allowUnescaped });
  const template = hbs.compile(source, COMPILE_OPTIONS);
  try {
    // compile() returns a wrapper that compiles on first call; _setup forces it, so that the work
    // and any compile error happen at start-up rather than on a request.
    (template as Template & { _setup(options: object): void })._setup({});
  } catch (error) {
    check.problems.push(`${file}: ${oneLine((error as Error).message)}`);
  }
  return { template, ...check };
}

// Handlebars parse errors span lines (source excerpt, caret, expectation): keep the first and last.
function oneLine(message: string): string {
  const lines = message.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 1 ? `${lines[0]} ${lines[lines.length - 1]}` : (lines[0] ?? message);
}

function registerHelpers(hbs: typeof Handlebars, translations: Translations): void {
  hbs.registerHelper("t", function (this: unknown, key: unknown, options: Handlebars.HelperOptions) {
    if (typeof key !== "string") throw new Error("{{t}} needs a string key");
    const lang: unknown = options.data?.lang;
    if (!isLang(lang)) throw new Error("{{t}} used outside a page render");
    return translations.translate(lang, key, options.hash as Record<string, unknown>);
  });

  hbs.registerHelper("safeUrl", (value: unknown) => safeUrl(value));

  hbs.registerHelper("json", (value: unknown) => new hbs.SafeString(scriptJson(value)));
}

/** The URL as given, or about:blank when it is not a string or its scheme could run script. */
export function safeUrl(value: unknown): string {
  if (typeof value !== "string" || value === "") return "about:blank";
  let scheme: string;
  try {
    // The WHATWG parser strips the tabs, newlines and control characters a browser ignores, so
    // "java\tscript:" is seen as what the browser will see.
    scheme = new URL(value, "https://relative.invalid/").protocol;
  } catch {
    return "about:blank";
  }
  return UNSAFE_SCHEMES.has(scheme) ? "about:blank" : value;
}

/**
 * JSON that cannot end a script element, open a comment or leave a JS string or template literal:
 * <, >, &, ', `, U+2028 and U+2029 as \u escapes.
 */
export function scriptJson(value: unknown): string {
  return (JSON.stringify(value ?? null) ?? "null").replace(
    /[<>&'`\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
