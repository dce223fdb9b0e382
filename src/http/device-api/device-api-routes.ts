import express, { type Request, type Router } from "express";
import { importJWK, type JWK } from "jose";
import type { Infra } from "../../infra/infra.ts";
import { pluginServices } from "../../infra/live-services.ts";
import { takeScope } from "../../infra/scope.ts";
import { invalidRequest, oauthError } from "../../errors/oauth-error.ts";
import { strictJsonBody } from "../../http-kit/strict-json-body.ts";
import { DEVICE_JWS_TYPES, type DeviceJwsType } from "../../trusted-app/device-jws.ts";
import { deviceRequestBody, verifiedDeviceRequest } from "../../trusted-app/device-request.ts";
import { TooManyDevicesError } from "../../trusted-app/device-registry.ts";
import { ChallengeError } from "../../trusted-app/login-challenges.ts";
import { trustedApp } from "../../trusted-app/trusted-app.ts";
export { DEVICE_API_PATH } from "../../trusted-app/acmeauth-uri.ts";

/** Nothing the app sends is bigger: a JWS or a public key and a name. */
const MAX_BODY = "16kb";
const MAX_NAME = 64;
// A device name is shown on login pages: printable text, no control or bidi-override characters.
const DEVICE_NAME = /^[^\p{Cc}\p{Cf}]{1,64}$/u;

/**
 * The device API of the trusted app (DESIGN "The trusted app"), JSON in and out, errors as
 * `{error, error_description}` (400, or 401 for a device JWS we refuse):
 *
 *   POST /app/enroll    {token, name, public_jwk}  → {device_id, seed, sub, issuer}
 *   POST /app/scan      {jws}  typ acmeauth-scan+jwt, claim `challenge` (the QR's scan token), and `gps` /
 *                       `faceid` when the QR's `req` asks (app-evidence.ts) → {status: "scanned"}
 *   POST /app/approve   {jws}  typ acmeauth-approve+jwt, claims `challenge`, `number` (shown on the page) → {status: "approved"}
 *   POST /app/deny      {jws}  typ acmeauth-deny+jwt, claim `challenge` → {status: "denied"}
 *   POST /app/unenroll  {jws}  typ acmeauth-unenroll+jwt → {status: "revoked"}: the device revokes itself
 */
export function deviceApiRoutes(infra: Infra): Router {
  const router = express.Router();
  const app = trustedApp(pluginServices(infra));
  router.use(strictJsonBody(MAX_BODY, invalidRequest));

  router.post("/enroll", async (req, res) => {
    const { token, name, public_jwk: publicJwk } = deviceRequestBody(req);
    if (typeof token !== "string" || token.length > 128) throw invalidRequest("token is required");
    if (typeof name !== "string" || !DEVICE_NAME.test(name) || name.trim() === "")
      throw invalidRequest(`name must be 1 to ${MAX_NAME} printable characters`);
    const jwk = await checkedPublicKey(publicJwk);
    const redeemed = await app.enrollments.redeem(token);
    if (!redeemed || !(await takeScope(infra).policy.users.isActive(redeemed.sub)))
      throw oauthError("invalid_grant", "the enrollment code is not valid: used, expired or unknown");
    let added;
    try {
      added = await app.devices.add(redeemed.sub, name.trim(), jwk);
    } catch (err) {
      if (err instanceof TooManyDevicesError) throw invalidRequest(err.message);
      throw err;
    }
    if (redeemed.sessionId) await app.enrollments.markEnrolled(redeemed.sessionId, added.device.name);
    infra.logger.info({ event: "trusted_app_enrolled", sub: redeemed.sub, device: added.device.id }, "trusted-app device enrolled");
    res.set("Cache-Control", "no-store").json({ device_id: added.device.id, seed: added.seed, sub: redeemed.sub, issuer: infra.issuer });
  });

  router.post("/scan", async (req, res) => {
    const { sub, device, claims } = await verified(req, DEVICE_JWS_TYPES.scan);
    await decided(() => app.challenges.scan(claims.challenge as string, sub, device, claims));
    infra.logger.info({ event: "trusted_app_scan", sub, device: device.id }, "login QR scanned");
    res.set("Cache-Control", "no-store").json({ status: "scanned" });
  });

  router.post("/approve", async (req, res) => {
    const { sub, device, claims } = await verified(req, DEVICE_JWS_TYPES.approve);
    await decided(() => app.challenges.decide(claims.challenge as string, sub, device, { approve: true, number: claims.number }));
    res.set("Cache-Control", "no-store").json({ status: "approved" });
  });

  router.post("/deny", async (req, res) => {
    const { sub, device, claims } = await verified(req, DEVICE_JWS_TYPES.deny);
    await decided(() => app.challenges.decide(claims.challenge as string, sub, device, { approve: false }));
    res.set("Cache-Control", "no-store").json({ status: "denied" });
  });

  router.post("/unenroll", async (req, res) => {
    const { sub, device } = await verified(req, DEVICE_JWS_TYPES.unenroll);
    await app.devices.revoke(sub, device.id);
    infra.logger.info({ event: "trusted_app_unenrolled", sub, device: device.id }, "trusted-app device revoked by itself");
    res.set("Cache-Control", "no-store").json({ status: "revoked" });
  });

  router.use((_req, _res, next) => next(oauthError("not_found", "no such endpoint")));

  const verified = (req: Request, typ: DeviceJwsType) => verifiedDeviceRequest(app, req, typ);

  return router;
}

/** A challenge step the app may not take (expired, already scanned, wrong number, evidence missing): 400. */
async function decided(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    if (!(err instanceof ChallengeError)) throw err;
    throw oauthError(err.denied ? "access_denied" : "invalid_grant", err.reason, { status: 400 });
  }
}

/** An EC P-256 public key with nothing else in it: no private part, a point on the curve. */
async function checkedPublicKey(value: unknown): Promise<JWK> {
  if (typeof value !== "object" || value === null) throw invalidRequest("public_jwk is required");
  const { kty, crv, x, y } = value as Record<string, unknown>;
  if (kty !== "EC" || crv !== "P-256" || typeof x !== "string" || typeof y !== "string" || "d" in value)
    throw invalidRequest("public_jwk must be an EC P-256 public key");
  const jwk: JWK = { kty, crv, x, y };
  try {
    await importJWK(jwk, "ES256");
  } catch {
    throw invalidRequest("public_jwk is not a valid P-256 public key");
  }
  return jwk;
}
