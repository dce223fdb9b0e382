import { DemoPageError } from "./demo-page-error.ts";

/** An authorization response that carries a code (RFC 6749 §4.1.2). */
export interface CodeRedirect {
  code: string;
  state: string;
}

/**
 * The authorization response in a redirect URI's query: undefined when the query is not one (the page
 * is opened again after its 303), a DemoPageError for an error response, and for an `iss` that is not
 * our provider (RFC 9207: a response of another provider must not be redeemed at ours).
 */
export function readRedirect(query: Record<string, unknown>, provider: string): CodeRedirect | undefined {
  const text = (name: string) => (typeof query[name] === "string" ? (query[name] as string) : undefined);
  const error = text("error");
  if (error !== undefined)
    throw new DemoPageError(400, `The sign-in was refused: ${error}${text("error_description") ? ` (${text("error_description")})` : ""}.`);
  const code = text("code");
  if (code === undefined) return undefined;
  const iss = text("iss");
  if (iss !== undefined && iss !== provider) throw new DemoPageError(400, "This answer comes from another identity provider.");
  const state = text("state");
  if (code === "" || state === undefined) throw new DemoPageError(400, "The sign-in answer has no code or no state.");
  return { code, state };
}
