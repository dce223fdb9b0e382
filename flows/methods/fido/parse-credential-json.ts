import { parseStrictJson } from "../../../src/plugin-contract/index.ts";

/**
 * The credential the page posted (JSON of a PublicKeyCredential, binary fields base64url), or
 * undefined when it is not a JSON object with an id and a response object, or has a member twice (one
 * credential, one reading). The WebAuthn library checks every field after that.
 */
export function parseCredentialJson<T extends { id: string; response: object }>(text: string): T | undefined {
  let parsed: unknown;
  try {
    parsed = parseStrictJson(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { id, response } = parsed as { id?: unknown; response?: unknown };
  return typeof id === "string" && typeof response === "object" && response !== null ? (parsed as T) : undefined;
}
