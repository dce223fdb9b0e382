import type { TrustedAppServices } from "./trusted-app-services.ts";
import { checkAppEvidence, NO_APP_EVIDENCE, type AppEvidence, type AppEvidenceWanted } from "./app-evidence.ts";
import { DEVICE_JWS_TYPES, DeviceJwsError } from "./device-jws.ts";
import { trustedApp } from "./trusted-app.ts";

/** A silent-login token lives at most this long (exp - iat). */
export const SILENT_LOGIN_MAX_SECONDS = 120;

/** The authorize parameter that carries the trusted app's silent-login token. */
export const SILENT_LOGIN_PARAMETER = "acmeauth_token";

/** An accepted silent-login token: its user, and the evidence the request wanted (app_gps / app_faceid). */
export interface SilentLogin {
  sub: string;
  evidence: AppEvidence;
}

/**
 * The embedded-web-view token (DESIGN "Trusted environment"): the trusted app opens an authorize
 * request in its web view and presents a short-lived JWS its device signed (typ acmeauth-sso+jwt,
 * aud our issuer, `client_id` the requesting client, iat/exp at most SILENT_LOGIN_MAX_SECONDS apart,
 * a jti used once, and the `gps` / `faceid` claims the request wants: app-evidence.ts). A valid one
 * identifies the user without a scan. Throws DeviceJwsError when the token is refused.
 */
export async function verifySilentLoginToken(
  services: TrustedAppServices,
  token: unknown,
  clientId: string,
  wanted: AppEvidenceWanted = NO_APP_EVIDENCE,
): Promise<SilentLogin> {
  const { sub, claims } = await trustedApp(services).verify(token, DEVICE_JWS_TYPES.silentLogin);
  if (typeof claims.exp !== "number" || claims.exp - claims.iat! > SILENT_LOGIN_MAX_SECONDS)
    throw new DeviceJwsError(`the silent-login token must expire within ${SILENT_LOGIN_MAX_SECONDS} s of iat`);
  if (claims.client_id !== clientId) throw new DeviceJwsError("the silent-login token was made for another client");
  const checked = checkAppEvidence(claims, wanted, Math.floor(services.clock() / 1000));
  if (!checked.ok) throw new DeviceJwsError(checked.description);
  return { sub, evidence: checked.evidence };
}
