import { ssoCodeFlow, tokenRequest, type Browser, type Send, type Tokens } from "./code-flow.ts";
import { DEMO_WEB } from "./demo-accounts.ts";

/**
 * The refresh_token grant as demo-web uses it: one code flow with offline_access for a refresh token,
 * then refreshes, each presenting the token the last one returned (tokens rotate on every use).
 */

/** What demo-web asks for when it wants to refresh: its usual scope plus offline_access. */
export const REFRESH_SCOPE = `${DEMO_WEB.scope} offline_access`;

/** Tokens that include a refresh token. */
export type RefreshableTokens = Tokens & { refresh_token: string };

/** One SSO code flow with offline_access (the browser has a session): the first refresh token of a family. */
export async function firstRefreshToken(browser: Browser, send: Send, label: string, pkce: { verifier: string; challenge: string }): Promise<string> {
  const tokens = await ssoCodeFlow(browser, send, label, pkce, REFRESH_SCOPE);
  if (typeof tokens.refresh_token !== "string") throw new Error("the code flow with offline_access gave no refresh_token");
  return tokens.refresh_token;
}

/** POST /connect/token with grant_type=refresh_token (client_secret_post): a new ID token, access token and refresh token. */
export async function refreshGrant(send: Send, refreshToken: string): Promise<RefreshableTokens> {
  const form = new URLSearchParams({
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: DEMO_WEB.clientId,
    client_secret: DEMO_WEB.clientSecret,
  }).toString();
  return (await tokenRequest(send, "refresh", form, ["refresh_token"])) as RefreshableTokens;
}
