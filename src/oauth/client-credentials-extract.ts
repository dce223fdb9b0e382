import { invalidClient, invalidRequest } from "../errors/oauth-error.ts";
import type { Params } from "../http-kit/params.ts";

/** Credentials as presented, before any lookup. */
export interface PresentedCredentials {
  clientId: string;
  secret: string | undefined;
  usedBasic: boolean;
}

/**
 * Reads client credentials from `Authorization: Basic` (RFC 6749 §2.3.1: each part form-urlencoded)
 * or from the form body (client_secret_post). Using both methods at once is invalid_request.
 */
export function extractClientCredentials(authorization: string | undefined, params: Params): PresentedCredentials {
  const formId = params.get("client_id");
  const formSecret = params.get("client_secret");
  if (authorization !== undefined && /^basic\s/i.test(authorization)) {
    if (formSecret !== undefined) throw invalidRequest("use one client authentication method, not both Basic and client_secret");
    const basic = decodeBasic(authorization.slice(6).trim());
    if (formId !== undefined && formId !== basic.clientId) throw invalidRequest("client_id does not match the Basic credentials");
    return { ...basic, usedBasic: true };
  }
  if (formId === undefined) throw invalidClient("client authentication failed", false);
  return { clientId: formId, secret: formSecret, usedBasic: false };
}

function decodeBasic(encoded: string): { clientId: string; secret: string } {
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) throw invalidClient("client authentication failed", true);
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw invalidClient("client authentication failed", true);
  }
}
