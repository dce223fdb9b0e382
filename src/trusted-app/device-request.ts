import type { Request } from "express";
import { invalidRequest, type OAuthError, oauthError } from "../errors/oauth-error.ts";
import { DeviceJwsError, type DeviceJwsType, type VerifiedDeviceJws } from "./device-jws.ts";
import type { TrustedApp } from "./trusted-app.ts";

/**
 * A request of the trusted app (the device API, the bfido method's app routes): the JSON object it
 * posted (anything else is 400 invalid_request), and its `jws` verified as a device JWS of this type
 * (a refusal is 401 invalid_token, with the reason).
 */
export function deviceRequestBody(req: Request): Record<string, unknown> {
  const parsed: unknown = req.body;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalidRequest("a JSON object body is required");
  return parsed as Record<string, unknown>;
}

/** A device request refused (400, `{error, error_description}`): the description is for the app. */
export function refusedDeviceRequest(error: "invalid_request" | "invalid_grant" | "access_denied", description: string): OAuthError {
  // 400 for each: a refused device request is the request's fault, access_denied included.
  return oauthError(error, description, { status: 400 });
}

export async function verifiedDeviceRequest(app: TrustedApp, req: Request, typ: DeviceJwsType): Promise<VerifiedDeviceJws> {
  try {
    return await app.verify(deviceRequestBody(req).jws, typ);
  } catch (err) {
    if (err instanceof DeviceJwsError) throw oauthError("invalid_token", err.reason);
    throw err;
  }
}
