/** HTML that is already safe to write: the result of `html` or of `escapeHtml`. */
export class Html {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }

  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * A template tag for the demo pages: every interpolated value is escaped unless it is Html already, and
 * arrays are joined, so a page can only carry markup that was written in a template. The demo pages are
 * few and small; the provider's Handlebars views would tie these separate processes to its view setup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += fragment(value) + strings[i + 1]!;
  });
  return new Html(out);
}

function fragment(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(fragment).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}
