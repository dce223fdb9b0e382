import { readFileSync } from "node:fs";
import express, { type Router } from "express";
import { FidoChallenges } from "./fido-challenges.ts";
import type { FidoSettings } from "./fido-settings.ts";
import { invalidRequest, methodPageScript, strictJsonBody, type PluginContext } from "../../../src/plugin-contract/index.ts";

const PAGE_SCRIPT = readFileSync(new URL("./fido.js", import.meta.url), "utf8");

/**
 * The FIDO2 routes (under /methods/fido):
 *   GET  /fido.js   the login and enrollment pages' script (loaded with the page's CSP nonce)
 *   POST /options   {"handle"} → {"ceremony": "registration"|"authentication", "options"}: the WebAuthn
 *                   options (JSON form, binary fields base64url) of the pending ceremony; 404 once it
 *                   was answered or expired. The challenge is not a secret, but it is answered once.
 */
export function fidoRoutes(context: PluginContext<FidoSettings>): Router {
  const router = express.Router();
  const challenges = new FidoChallenges(context);
  router.get("/fido.js", methodPageScript(PAGE_SCRIPT));
  router.post("/options", strictJsonBody(1024, invalidRequest), (req, res, next) => {
    const handle = (req.body as { handle?: unknown } | undefined)?.handle;
    const pending = typeof handle === "string" && handle.length <= 64 ? challenges.find(handle) : Promise.resolve(undefined);
    pending
      .then((found) => {
        res.set("Cache-Control", "no-store");
        if (found) res.json({ ceremony: found.ceremony, options: found.options });
        else res.status(404).json({ error: "not_found" });
      })
      .catch(next);
  });
  return router;
}
