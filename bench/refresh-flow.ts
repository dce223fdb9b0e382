import { ssoCodeFlow, tokenRequest, withCredentials, type Browser, type Send, type Tokens } from "./code-flow.ts";
import { DEMO_PORTAL, DEMO_WEB, type CodeFlowClient } from "./demo-accounts.ts";
import type { AccessTokenFormat } from "./load-protocol.ts";

/**
 * The refresh_token grant as a demo client uses it: one code flow with offline_access for a refresh
 * token, then refreshes, each presenting the token the last one returned (tokens rotate on every use).
 */

/** What a client asks for when it wants to refresh: demo-web's usual scope plus offline_access. */
export const REFRESH_SCOPE = `${DEMO_WEB.scope} offline_access`;

/**
 * The client whose refresh grants are loaded, by the format of its access tokens (clients.yaml
 * access_token_format): demo-web gets RS256 JWTs, demo-portal reference handles.
 */
export const REFRESHING_CLIENT: Readonly<Record<AccessTokenFormat, CodeFlowClient>> = { jwt: DEMO_WEB, reference: DEMO_PORTAL };

/** Tokens that include a refresh token. */
export type RefreshableTokens = Tokens & { refresh_token: string };

/** One SSO code flow with offline_access (the browser has a session): the first refresh token of a family. */
export async function firstRefreshToken(
  browser: Browser,
  send: Send,
  label: string,
  pkce: { verifier: string; challenge: string },
  client: CodeFlowClient = DEMO_WEB,
): Promise<string> {
  const tokens = await ssoCodeFlow(browser, send, label, pkce, REFRESH_SCOPE, client);
  if (typeof tokens.refresh_token !== "string")
    throw new Error(`the code flow of ${client.clientId} with offline_access gave no refresh_token`);
  return tokens.refresh_token;
}

/**
 * POST /connect/token with grant_type=refresh_token (client_secret_post, or the client's own credentials):
 * a new ID token, access token and refresh token.
 */
export async function refreshGrant(send: Send, refreshToken: string, client: CodeFlowClient = DEMO_WEB): Promise<RefreshableTokens> {
  const form = withCredentials(new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }), client);
  return (await tokenRequest(send, "refresh", form, ["refresh_token"], client)) as RefreshableTokens;
}
