/**
 * A user signed in at a relying party the way a browser and a client do it over real HTTP: the
 * authorize request at a node (a login on the password form, or at once with the browser's SSO
 * session), then the code redeemed at that node's token endpoint with PKCE and the client's secret.
 */
import { decodeJwt } from "jose";
import { expect } from "vitest";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import { authorizeUrl, responseParams, submitPassword } from "./browser-login.ts";
import { VERIFIER } from "./code-grant.ts";
import type { RawBrowser } from "./raw-browser.ts";
import { postForm, send } from "./test-provider.ts";

export interface SigningClient {
  id: string;
  secret: string;
  redirectUri: string;
}

export interface SignedIn {
  accessToken: string;
  refreshToken?: string;
  /** The SSO session the ID token names. */
  sid: string;
}

/** Signs `browser` in as alice (or `user`) at `client` through `node`, and redeems the code there. */
export async function signInThrough(
  browser: RawBrowser,
  node: { url: string },
  client: SigningClient,
  scope: string,
  user = { username: "alice", password: "alice-password" },
): Promise<SignedIn> {
  const url = authorizeUrl(node.url, {
    client_id: client.id,
    redirect_uri: client.redirectUri,
    scope,
    code_challenge: s256Challenge(VERIFIER),
    code_challenge_method: "S256",
  });
  const first = await browser.follow(await browser.get(url));
  // With an SSO session the code comes at once; otherwise this is the login page.
  const answer = first.status === 303 ? first : await submitPassword(browser, first, user.username, user.password);
  const code = responseParams(answer).get("code");
  expect(code, answer.text.slice(0, 300)).toBeTruthy();
  const tokens = await postForm(`${node.url}/connect/token`, {
    grant_type: "authorization_code",
    client_id: client.id,
    client_secret: client.secret,
    code: code!,
    redirect_uri: client.redirectUri,
    code_verifier: VERIFIER,
  });
  expect(tokens.status, tokens.text).toBe(200);
  const json = tokens.json!;
  return {
    accessToken: json.access_token as string,
    ...(typeof json.refresh_token === "string" && { refreshToken: json.refresh_token }),
    sid: decodeJwt(json.id_token as string).sid as string,
  };
}

/**
 * Whether the user's tokens still work at `node`: userinfo's status, introspection's `active` (as
 * acme-api), a refresh's status. A refresh that works rotates the token: `signedIn` keeps the successor,
 * so that the next look presents a live token, not a reused one.
 */
export async function tokenState(node: { url: string }, signedIn: SignedIn, client: SigningClient) {
  const userinfo = await send(`${node.url}/connect/userinfo`, { headers: { authorization: `Bearer ${signedIn.accessToken}` } });
  const introspection = await postForm(
    `${node.url}/connect/introspect`,
    { token: signedIn.accessToken },
    { authorization: `Basic ${Buffer.from("acme-api:acme-api-secret").toString("base64")}` },
  );
  const refreshed =
    signedIn.refreshToken === undefined
      ? undefined
      : await postForm(`${node.url}/connect/token`, {
          grant_type: "refresh_token",
          client_id: client.id,
          client_secret: client.secret,
          refresh_token: signedIn.refreshToken,
        });
  if (refreshed?.status === 200) signedIn.refreshToken = refreshed.json!.refresh_token as string;
  return {
    userinfo: userinfo.status,
    active: introspection.json?.active,
    refresh: refreshed === undefined ? undefined : { status: refreshed.status, error: refreshed.json?.error },
  };
}
