/**
 * The body of GET /Acme/CustomLogin/LoginJs (custom-login contract §1): the browser library with this
 * load's scan session in its scope, or the error library with the message. The libraries are plain ES5
 * files next to this one, read once when the module loads.
 */
import { readFileSync } from "node:fs";

const LIBRARY = readFileSync(new URL("./acme-sso.js", import.meta.url), "utf8");
const ERROR_LIBRARY = readFileSync(new URL("./acme-sso-error.js", import.meta.url), "utf8");

/** The script for a created scan session: `SESSION` holds it, `new AcmeSSO(...)` draws it. */
export function loginScript(session: object): string {
  return wrap("SESSION", session, LIBRARY);
}

/** The script for refused parameters: logs `message` and writes it into the container as text. */
export function loginErrorScript(message: string): string {
  return wrap("ERROR", message, ERROR_LIBRARY);
}

/**
 * JSON that stays one value inside a `<script>` element: `<`, `>` and `&` become \u escapes (so
 * `</script>` or `<!--` in a value cannot end or change the element), and so do U+2028 and U+2029,
 * which JSON allows in strings but JavaScript before ES2019 does not.
 */
export function scriptSafeJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("scriptSafeJson: the value has no JSON form");
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function wrap(name: string, value: unknown, library: string): string {
  return `(function (window) {\nvar ${name} = ${scriptSafeJson(value)};\n${library}\n})(window);\n`;
}
