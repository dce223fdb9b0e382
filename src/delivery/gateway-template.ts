import { ConfigError } from "../errors/config-error.ts";

/** The values an SMS gateway template may name: `{to}` and `{text}`. */
export interface TemplateValues {
  to: string;
  text: string;
}

const PLACEHOLDER = /\{(to|text)\}/g;

/** Fills `{to}` and `{text}` in one pass: a value that itself contains "{to}" is not filled again. */
function fill(template: string, values: TemplateValues, encode: (value: string) => string): string {
  return template.replace(PLACEHOLDER, (_match, name: keyof TemplateValues) => encode(values[name]));
}

/**
 * A body template compiled once, at start-up, into a function that builds each request's body.
 * Values are never pasted into the text: a JSON template is parsed, the placeholders are filled in
 * its string values, and the result is serialised again; a form template is split into its fields
 * and re-encoded. So a message text with quotes, `&`, `=` or newlines cannot change the body's shape.
 */
export function compileBodyTemplate(format: "json" | "form", template: string, keyPath: string): (values: TemplateValues) => string {
  if (format === "form") {
    const fields = [...new URLSearchParams(template)];
    return (values) => new URLSearchParams(fields.map(([name, value]) => [name, fill(value, values, String)])).toString();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(template);
  } catch {
    throw new ConfigError([
      { file: "login.yaml", path: keyPath, message: 'is not JSON (placeholders go inside JSON strings, e.g. {"to": "{to}"})' },
    ]);
  }
  const fillStrings = (node: unknown, values: TemplateValues): unknown => {
    if (typeof node === "string") return fill(node, values, String);
    if (Array.isArray(node)) return node.map((item) => fillStrings(item, values));
    if (node !== null && typeof node === "object")
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fillStrings(v, values)]));
    return node;
  };
  return (values) => JSON.stringify(fillStrings(parsed, values));
}

/** A URL template (`https://gw/send?to={to}&text={text}`): values percent-encoded for a URL. */
export function compileUrlTemplate(template: string): (values: TemplateValues) => string {
  return (values) => fill(template, values, encodeURIComponent);
}
