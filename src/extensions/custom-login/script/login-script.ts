import { readFileSync } from "node:fs";
import { scriptJson } from "../../../views/view-engine.ts";

// PLACEHOLDER until the script lands: defines AcmeSSO with the session in scope.
const LIBRARY = readFileSync(new URL("./acme-sso.js", import.meta.url), "utf8");
const ERROR_LIBRARY = readFileSync(new URL("./acme-sso-error.js", import.meta.url), "utf8");

export function loginScript(session: object): string {
  return `(function (window) {\nvar SESSION = ${scriptJson(session)};\n${LIBRARY}\n})(window);\n`;
}

export function loginErrorScript(message: string): string {
  return `(function (window) {\nvar ERROR = ${scriptJson(message)};\n${ERROR_LIBRARY}\n})(window);\n`;
}
