import { decodeJwt, type JWTPayload } from "jose";
import { DemoPageError } from "./demo-page-error.ts";

export interface ConfidentialClient {
  id: string;
  secret: string;
  redirectUri: string;
}

export interface CodeExchange {
  sub: string;
  idClaims: JWTPayload & { sub: string };
  accessToken: string;
}

/**
 * Redeems an authorization code at `{provider}/connect/token` (client_secret_post, as the spec asks) and
 * reads the ID token's claims.
 *
 * The ID token's signature is not verified, on purpose: OIDC Core §3.1.3.7 (6) lets a confidential
 * client that got the ID token directly from the token endpoint over the back channel rely on that
 * connection instead (TLS in production; loopback in the demo). Issuer and audience are still checked.
 * These pages do not use openid-client: they never start the authorization request (the provider's
 * script does), so its state, nonce and PKCE checks would all have to be switched off.
 */
export async function exchangeCode(provider: string, client: ConfidentialClient, code: string): Promise<CodeExchange> {
  let res: globalThis.Response;
  try {
    res = await fetch(`${provider}/connect/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: client.redirectUri,
        client_id: client.id,
        client_secret: client.secret,
      }),
      redirect: "error",
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new DemoPageError(502, "The identity provider cannot be reached.");
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    // A used or expired code is the usual cause (a reload of the redirect); the provider's words say which.
    const description = typeof body.error_description === "string" ? body.error_description : String(body.error ?? `HTTP ${res.status}`);
    throw new DemoPageError(400, `The sign-in could not be completed: ${description}`);
  }
  if (typeof body.access_token !== "string" || typeof body.id_token !== "string")
    throw new DemoPageError(502, "The identity provider's answer has no ID token or access token.");
  const idClaims = readIdToken(body.id_token, provider, client.id);
  return { sub: idClaims.sub, idClaims, accessToken: body.access_token };
}

function readIdToken(idToken: string, provider: string, clientId: string): JWTPayload & { sub: string } {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(idToken);
  } catch {
    throw new DemoPageError(502, "The identity provider's ID token cannot be read.");
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== provider || !audience.includes(clientId) || typeof claims.sub !== "string" || claims.sub === "") {
    throw new DemoPageError(502, "The ID token is not from this provider or not for this site.");
  }
  return claims as JWTPayload & { sub: string };
}
