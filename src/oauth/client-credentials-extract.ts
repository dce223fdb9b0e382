import { decodeJwt } from "jose";
import { invalidClient, invalidRequest } from "../errors/oauth-error.ts";
import type { Params } from "../http-kit/params.ts";
import { JWT_BEARER_ASSERTION_TYPE } from "./verify-client-assertion.ts";

/** Credentials as presented, before any lookup. */
export interface PresentedCredentials {
  clientId: string;
  /** client_secret_basic or client_secret_post. */
  secret: string | undefined;
  usedBasic: boolean;
  /** private_key_jwt: the client_assertion, its client_assertion_type already found to be RFC 7523's. */
  assertion?: string;
}

/**
 * Reads client credentials from `Authorization: Basic` (RFC 6749 §2.3.1: each part form-urlencoded),
 * from the form body (client_secret_post), or as a client assertion (RFC 7521 §4.2, private_key_jwt).
 * Using two methods at once is invalid_request (RFC 6749 §2.3).
 */
export function extractClientCredentials(authorization: string | undefined, params: Params): PresentedCredentials {
  const formId = params.get("client_id");
  const formSecret = params.get("client_secret");
  const usesBasic = authorization !== undefined && /^basic\s/i.test(authorization);
  if (params.has("client_assertion") || params.has("client_assertion_type")) {
    if (usesBasic || formSecret !== undefined)
      throw invalidRequest("use one client authentication method, not a secret and a client assertion");
    return fromAssertion(params.get("client_assertion"), params.get("client_assertion_type"), formId);
  }
  if (usesBasic) {
    if (formSecret !== undefined) throw invalidRequest("use one client authentication method, not both Basic and client_secret");
    const basic = decodeBasic(authorization.slice(6).trim());
    if (formId !== undefined && formId !== basic.clientId) throw invalidRequest("client_id does not match the Basic credentials");
    return { ...basic, usedBasic: true };
  }
  if (formId === undefined) throw invalidClient("client authentication failed", false);
  return { clientId: formId, secret: formSecret, usedBasic: false };
}

/**
 * A client assertion: the type exactly RFC 7523's, and the client named by the form's client_id or,
 * when that is omitted (RFC 7521 §4.2 makes it optional), by the assertion's sub — read unverified here,
 * only to find whose keys verify it; the verification then checks iss and sub against that client.
 */
function fromAssertion(assertion: string | undefined, type: string | undefined, formId: string | undefined): PresentedCredentials {
  if (assertion === undefined || type !== JWT_BEARER_ASSERTION_TYPE) throw invalidClient("client authentication failed", false);
  let clientId = formId;
  if (clientId === undefined) {
    try {
      const sub = decodeJwt(assertion).sub;
      clientId = typeof sub === "string" ? sub : undefined;
    } catch {
      clientId = undefined;
    }
  }
  if (clientId === undefined) throw invalidClient("client authentication failed", false);
  return { clientId, secret: undefined, usedBasic: false, assertion };
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
