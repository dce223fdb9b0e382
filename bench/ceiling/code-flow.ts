import { hash, randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { DEMO_ISSUER } from "../demo-accounts.ts";
import { findClient, grantedScopes } from "./clients.ts";
import { sendError, sendJson, sendSeeOther, type Handler } from "./http.ts";
import { issueRefreshToken } from "./refresh-tokens.ts";
import { sessionOf } from "./sessions.ts";
import type { Grant } from "./token-endpoint.ts";
import { LIFETIME_SECONDS, issueAccessToken, issueIdToken, type Authentication } from "./tokens.ts";

/**
 * The ceilings' authorization code flow for a browser that already has a session (sessions.ts):
 * - GET /connect/authorize with the session cookie: the client and its exact redirect_uri, response_type,
 *   scope, a PKCE S256 challenge; a code (32 random bytes) stored → 303 to the redirect_uri with code,
 *   state and iss (RFC 9207).
 * - POST /connect/token, authorization_code: the client's secret, the code taken once, its client and
 *   redirect_uri, the PKCE verifier → an ID token and an access token, both RS256, and a refresh token
 *   when the scope has offline_access (refresh-tokens.ts).
 */

/** config/provider.yaml's lifetimes.authorization_code: 5 min. */
const CODE_LIFETIME_MS = 5 * 60_000;
const ISSUER_PARAM = encodeURIComponent(DEMO_ISSUER);
/** RFC 7636 §4.2: an S256 challenge is the base64url of a SHA-256, 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  nonce: string | undefined;
  challenge: string;
  auth: Authentication;
  expiresAt: number;
}

const codes = new Map<string, IssuedCode>();

export const authorize: Handler = (req, res, query) => {
  const params = new URLSearchParams(query);
  const client = findClient(params.get("client_id"));
  const redirectUri = params.get("redirect_uri");
  // Without a known client and one of its exact redirect URIs there is nowhere safe to send an error to.
  if (!client || redirectUri === null || !client.redirectUris.has(redirectUri)) return sendError(res, "invalid_request");
  const state = params.get("state");
  const fail = (error: string) => redirect(res, redirectUri, `error=${error}`, state);
  if (params.get("response_type") !== "code" || !client.grantTypes.has("authorization_code")) return fail("unsupported_response_type");
  const requested = params.get("scope");
  const scopes = requested === null ? undefined : grantedScopes(client, requested);
  if (!scopes?.includes("openid")) return fail("invalid_scope");
  const challenge = params.get("code_challenge");
  if (params.get("code_challenge_method") !== "S256" || challenge === null || !S256_CHALLENGE.test(challenge))
    return fail("invalid_request");
  const auth = sessionOf(req);
  if (!auth) return fail("login_required");
  const code = randomBytes(32).toString("base64url");
  codes.set(code, {
    clientId: client.id,
    redirectUri,
    scopes,
    nonce: params.get("nonce") ?? undefined,
    challenge,
    auth,
    expiresAt: Date.now() + CODE_LIFETIME_MS,
  });
  redirect(res, redirectUri, `code=${code}`, state);
};

function redirect(res: ServerResponse, redirectUri: string, result: string, state: string | null): void {
  sendSeeOther(res, `${redirectUri}?${result}${state === null ? "" : `&state=${encodeURIComponent(state)}`}&iss=${ISSUER_PARAM}`);
}

export const redeemCode: Grant = (form, client, res) => {
  const code = form.get("code");
  const issued = code === null ? undefined : codes.get(code);
  // Taken once, whatever happens next: a code is single-use (RFC 6749 §4.1.2).
  if (code !== null) codes.delete(code);
  if (!issued || issued.expiresAt < Date.now() || issued.clientId !== client.id || issued.redirectUri !== form.get("redirect_uri"))
    return sendError(res, "invalid_grant");
  const verifier = form.get("code_verifier");
  if (verifier === null || !CODE_VERIFIER.test(verifier) || hash("sha256", verifier, "base64url") !== issued.challenge)
    return sendError(res, "invalid_grant");
  const accessToken = issueAccessToken(issued.auth.sub, client.id, issued.scopes, issued.auth, issued.nonce);
  const idToken = issueIdToken(issued.auth, client.id, issued.nonce, accessToken);
  const refresh =
    issued.scopes.includes("offline_access") && client.grantTypes.has("refresh_token")
      ? { refresh_token: issueRefreshToken(client.id, issued.scopes, issued.auth) }
      : {};
  sendJson(res, 200, {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: LIFETIME_SECONDS,
    scope: issued.scopes.join(" "),
    id_token: idToken,
    ...refresh,
  });
};
