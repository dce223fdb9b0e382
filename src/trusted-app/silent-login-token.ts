import type { Provider } from "../provider.ts";
import { DEVICE_JWS_TYPES, DeviceJwsError } from "./device-jws.ts";
import { trustedApp } from "./trusted-app.ts";

/** A silent-login token lives at most this long (exp - iat). */
export const SILENT_LOGIN_MAX_SECONDS = 120;

/**
 * The embedded-web-view token (DESIGN "Trusted environment"): the trusted app opens an authorize
 * request in its web view and presents a short-lived JWS its device signed (typ acmeauth-sso+jwt,
 * aud our issuer, `client_id` the requesting client, iat/exp at most SILENT_LOGIN_MAX_SECONDS apart,
 * a jti used once). A valid one identifies the user without a scan; the answer is the user's sub.
 * Throws DeviceJwsError when the token is refused.
 */
export async function verifySilentLoginToken(provider: Provider, token: unknown, clientId: string): Promise<string> {
  const { sub, claims } = await trustedApp(provider).verify(token, DEVICE_JWS_TYPES.silentLogin);
  if (typeof claims.exp !== "number" || claims.exp - claims.iat! > SILENT_LOGIN_MAX_SECONDS) throw new DeviceJwsError(`the silent-login token must expire within ${SILENT_LOGIN_MAX_SECONDS} s of iat`);
  if (claims.client_id !== clientId) throw new DeviceJwsError("the silent-login token was made for another client");
  return sub;
}
