/**
 * The body of GET /Acme/CustomLogin/LoginJs (custom-login contract §1): the browser library with this
 * load's scan session in its scope, or the error library with the message. The libraries are plain ES5
 * files next to this one, read once when the module loads.
 */
import { readFileSync } from "node:fs";
import { scriptJson } from "../../../plugin-contract/index.ts";

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

function wrap(name: string, value: unknown, library: string): string {
  return `(function (window) {\nvar ${name} = ${scriptJson(value)};\n${library}\n})(window);\n`;
}
