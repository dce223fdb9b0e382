import { readFileSync } from "node:fs";
import express, { type Router } from "express";
import QRCode from "qrcode";
import { takeSecretToShow } from "./pending-secrets.ts";
import { otpauthUri } from "./totp-uri.ts";
import type { TotpSettings } from "./totp-settings.ts";
import { invalidRequest, methodPageScript, strictJsonBody, type PluginContext } from "../../../src/plugin-contract/index.ts";

const ENROLL_SCRIPT = readFileSync(new URL("./totp-enroll.js", import.meta.url), "utf8");

/**
 * The TOTP routes (under /methods/totp):
 *   GET  /enroll.js          the enrollment page's script (loaded with the page's CSP nonce)
 *   POST /enrollment-secret  {"handle"} → {"secret", "uri", "qr"}: the pending secret, its otpauth://
 *                            URI and a QR code (PNG data: URL) — once per handle; 404 after that
 */
export function totpRoutes(context: PluginContext<TotpSettings>): Router {
  const router = express.Router();
  router.get("/enroll.js", methodPageScript(ENROLL_SCRIPT));
  router.post("/enrollment-secret", strictJsonBody(1024, invalidRequest), (req, res, next) => {
    showSecret(context, req.body as unknown)
      .then((shown) => {
        res.set("Cache-Control", "no-store");
        if (shown) res.json(shown);
        else res.status(404).json({ error: "not_found" });
      })
      .catch(next);
  });
  return router;
}

async function showSecret(context: PluginContext<TotpSettings>, body: unknown) {
  const handle = (body as { handle?: unknown } | undefined)?.handle;
  if (typeof handle !== "string" || handle.length > 64) return undefined;
  const taken = await takeSecretToShow(context, handle);
  if (!taken) return undefined;
  const uri = await otpauthUri(context, taken.sub, taken.key);
  return {
    // In groups of four, as people copy it by hand.
    secret: taken.key.secret.replace(/(.{4})(?=.)/g, "$1 "),
    uri,
    qr: await QRCode.toDataURL(uri, { errorCorrectionLevel: "M", margin: 1, scale: 6 }),
  };
}
