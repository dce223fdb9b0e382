/**
 * The product rule for hostile client input — a clear error, never a stack trace, never a 500 — as a
 * list of what is wrong with one answer, so a property can show every problem of a counterexample.
 */
import type { RawAnswer } from "./raw-http.ts";

/**
 * Who reads a route's answers: a program (RFC 6749 JSON errors), a person in a browser (HTML pages), a
 * page's script tag (JavaScript, errors included: the custom login's LoginJs), or the mobile page's
 * backend of the custom login's WriteStatusOperation (the SPEC's JSON `{status, message}`).
 */
export type AnswerKind = "json" | "page" | "script" | "status-json";

// What internals look like when they leak: V8 stack frames, node's own modules, this checkout's
// paths, and a JavaScript or http-errors class name in front of a message.
const INTERNALS: readonly RegExp[] = [
  /\bat .+\(.+:\d+:\d+\)/,
  /^\s*at .+:\d+:\d+\)?$/m,
  /node:internal/,
  /node_modules/,
  new RegExp(escapeRegExp(process.cwd())),
  /\b(?:Type|Range|Syntax|Reference|URI|Eval|Aggregate|PayloadTooLarge|BadRequest|UnsupportedMediaType|InternalServer)Error\b/,
  /\bError: .*\n\s+at /,
];

// Scripts, stylesheets and images are files we ship, not messages: their bytes may look like anything.
const STATIC_TYPES = /^(?:text\/javascript|application\/javascript|text\/css|image\/)/;

// RFC 6749 §5.2: error and error_description are printable ASCII without '"' and '\'.
const ERROR_CHARS = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
const ERROR_MEMBERS = new Set(["error", "error_description", "error_uri"]);

/** Everything that breaks the rule in `answer`; `expected` is the route's kind, when the request's path is the route's own. */
export function answerProblems(answer: RawAnswer, expected: AnswerKind | undefined): string[] {
  if (answer.kind === "none") return [answer.reason];
  const problems: string[] = [];
  const type = String(answer.headers["content-type"] ?? "");
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (!STATIC_TYPES.test(type)) {
    for (const pattern of INTERNALS)
      if (pattern.test(answer.text)) problems.push(`internals in the body: ${excerpt(answer.text, pattern)}`);
  }
  // HEAD answers and bare challenges (RFC 6750 §3.1) have no body to check.
  if (answer.body.length === 0) return problems;
  if (/^application\/json/.test(type) && answer.status >= 400)
    problems.push(...(expected === "status-json" ? statusJsonProblems(answer.text) : errorJsonProblems(answer.text)));
  if (/^text\/html/.test(type)) problems.push(...pageProblems(answer.text));
  if (answer.status >= 400) {
    if ((expected === "json" || expected === "status-json") && !/^application\/json/.test(type))
      problems.push(`a ${answer.status} for a program that is not JSON (${type || "no Content-Type"})`);
    if (expected === "script" && !/^application\/javascript/.test(type))
      problems.push(`a ${answer.status} for a script tag that is not JavaScript (${type || "no Content-Type"})`);
    if (expected === "page" && !/^text\/html/.test(type))
      problems.push(`a ${answer.status} for a browser that is not an HTML page (${type || "no Content-Type"})`);
  }
  return problems;
}

/** The JSON object of an error answer, or the problem with it. */
function errorObject(text: string): Record<string, unknown> | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `a JSON error that does not parse: ${text.slice(0, 120)}`;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return `a JSON error that is not an object: ${text.slice(0, 120)}`;
  return body as Record<string, unknown>;
}

/** The custom login's WriteStatusOperation errors: exactly an integer `status` of the SPEC's table and a string `message`. */
function statusJsonProblems(text: string): string[] {
  const members = errorObject(text);
  if (typeof members === "string") return [members];
  const keys = Object.keys(members).sort().join(",");
  return keys === "message,status" && [400, 401, 501].includes(members.status as number) && typeof members.message === "string"
    ? []
    : [`not the SPEC's {status, message}: ${text.slice(0, 120)}`];
}

/** RFC 6749 §5.2's shape: an object with a string `error`, perhaps `error_description`, nothing else. */
function errorJsonProblems(text: string): string[] {
  const members = errorObject(text);
  if (typeof members === "string") return [members];
  const problems: string[] = [];
  if (typeof members.error !== "string" || members.error === "" || !ERROR_CHARS.test(members.error))
    problems.push(`bad "error": ${text.slice(0, 120)}`);
  if ("error_description" in members && (typeof members.error_description !== "string" || !ERROR_CHARS.test(members.error_description))) {
    problems.push(`bad "error_description": ${text.slice(0, 200)}`);
  }
  const extra = Object.keys(members).filter((k) => !ERROR_MEMBERS.has(k));
  if (extra.length > 0) problems.push(`members beyond RFC 6749 §5.2: ${extra.join(", ")}`);
  return problems;
}

/** An HTML answer is a whole page of ours: doctype, a language, and its end. */
function pageProblems(text: string): string[] {
  return /^<!DOCTYPE html>\s*<html lang="[\w-]+">/i.test(text) && /<\/html>\s*$/i.test(text)
    ? []
    : [`an HTML answer that is not a page: ${text.slice(0, 120)}`];
}

function excerpt(text: string, pattern: RegExp): string {
  const at = Math.max(0, text.search(pattern) - 40);
  return JSON.stringify(text.slice(at, at + 160));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
