import { readFileSync } from "node:fs";
import express, { type Request, type Router } from "express";
import type { FidoSettings, RelyingParty } from "../fido/fido-settings.ts";
import { longPoll } from "../qrcode/long-poll.ts";
import { BfidoAnswerError, BfidoLogins } from "./bfido-logins.ts";
import { finishAppRegistration, startAppRegistration } from "./bfido-registration.ts";
import {
  DEVICE_JWS_TYPES,
  methodPageScript,
  refusedDeviceRequest,
  strictJsonBody,
  trustedApp,
  verifiedDeviceRequest,
  writeQrSvg,
  type PluginContext,
} from "../../../src/plugin-contract/index.ts";

// The page works exactly like the qrcode method's scan step (same element ids): one script for both.
const PAGE_SCRIPT = readFileSync(new URL("../qrcode/qrcode-page.js", import.meta.url), "utf8");
const ID = /^[A-Za-z0-9_-]{16,64}$/;
/** A WebAuthn credential as JSON: a few hundred bytes; the JWS around it stays under the device JWS limit. */
const MAX_BODY = "16kb";

/**
 * The bfido method's routes (mounted at /methods/bfido). For the login page:
 *
 *   GET  /bfido-page.js                  the page's script
 *   GET  /logins/:id[?seen=<state>]      a login QR's state ({state, uri} while pending), long-polled
 *   GET  /logins/:id/qr.svg              its QR code (acmeauth://bfido?issuer=…&challenge=…)
 *
 * For the trusted app, each a device-signed JWS (`{jws}`, errors as `{error, error_description}`):
 *
 *   POST /registrations           typ acmeauth-bfido-register+jwt → {handle, options}: WebAuthn creation options
 *   POST /registrations/complete  typ acmeauth-bfido-register+jwt, claims `handle`, `credential` → {status: "registered"}
 *   POST /assertions              typ acmeauth-bfido+jwt, claims `challenge` (the QR's), `credential` → {status: "verified"}
 */
export function bfidoRoutes(context: PluginContext<FidoSettings>, rp: RelyingParty): Router {
  const router = express.Router();
  const app = trustedApp(context.services);
  const logins = new BfidoLogins(context, rp);

  router.get("/bfido-page.js", methodPageScript(PAGE_SCRIPT));

  router.get("/logins/:id", async (req, res) => {
    const id = checkedId(req);
    await longPoll(
      req,
      res,
      async () => (id === undefined ? { state: "expired" } : logins.view(id)),
      (state) => state !== "pending",
    );
  });

  router.get("/logins/:id/qr.svg", async (req, res) => {
    const id = checkedId(req);
    const view = id === undefined ? undefined : await logins.view(id);
    if (view?.state !== "pending") return void res.status(404).set("Cache-Control", "no-store").end();
    await writeQrSvg(res, view.uri);
  });

  router.use(strictJsonBody(MAX_BODY, (message) => refusedDeviceRequest("invalid_request", message)));

  router.post("/registrations", async (req, res) => {
    const { sub } = await verifiedDeviceRequest(app, req, DEVICE_JWS_TYPES.bfidoRegister);
    res.set("Cache-Control", "no-store").json(await startAppRegistration({ context, rp }, sub));
  });

  router.post("/registrations/complete", async (req, res) => {
    const { sub, device, claims } = await verifiedDeviceRequest(app, req, DEVICE_JWS_TYPES.bfidoRegister);
    if (typeof claims.handle !== "string" || claims.handle.length > 64)
      throw refusedDeviceRequest("invalid_request", "the claim handle is required");
    if (!(await finishAppRegistration({ context, rp }, sub, device, claims.handle, credentialJson(claims.credential)))) {
      throw refusedDeviceRequest(
        "invalid_grant",
        "the credential could not be registered (expired ceremony, failed verification, or registered already)",
      );
    }
    context.services.logger.info({ event: "bfido_registered", sub, device: device.id }, "trusted-app FIDO2 credential registered");
    res.set("Cache-Control", "no-store").json({ status: "registered" });
  });

  router.post("/assertions", async (req, res) => {
    const { sub, device, claims } = await verifiedDeviceRequest(app, req, DEVICE_JWS_TYPES.bfido);
    try {
      await logins.answer(claims.challenge, sub, device, credentialJson(claims.credential));
    } catch (err) {
      if (err instanceof BfidoAnswerError) throw refusedDeviceRequest("access_denied", err.reason);
      throw err;
    }
    res.set("Cache-Control", "no-store").json({ status: "verified" });
  });

  return router;
}

/** The credential claim as the JSON text the WebAuthn checks parse (anything not an object fails there). */
const credentialJson = (credential: unknown) => (typeof credential === "object" && credential !== null ? JSON.stringify(credential) : "");

function checkedId(req: Request): string | undefined {
  const id = String(req.params.id);
  return ID.test(id) ? id : undefined;
}
