import { readFileSync } from "node:fs";
import express, { type Request, type Router } from "express";
import { longPoll } from "./long-poll.ts";
import { currentSession, methodPageScript, trustedApp, writeQrSvg, type PluginServices } from "../../../src/plugin-contract/index.ts";

/** The page script of the scan, approval and enrollment steps (loaded with the page's CSP nonce). */
const PAGE_SCRIPT = readFileSync(new URL("./qrcode-page.js", import.meta.url), "utf8");
const ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The qrcode method's routes (mounted at /methods/qrcode):
 *
 *   GET /qrcode-page.js                  the pages' script
 *   GET /challenges/:id[?seen=<state>]   a login challenge's state ({state, uri} while it waits for a scan), long-polled
 *   GET /challenges/:id/qr.svg           its QR code
 *   GET /enrollments/:id[?seen=<state>]  an enrollment's state ({state, uri} while it waits), long-polled; signed-in user only
 *   GET /enrollments/:id/qr.svg          its QR code; signed-in user only
 *
 * A challenge id is known only to the page that shows it; the app holds the QR's scan token, which
 * does not lead here, so it cannot read the number it must be told. An enrollment's URI holds a
 * one-time token that enrolls a device for the user: only that user's signed-in browser gets it.
 */
export function qrcodeRoutes(services: PluginServices): Router {
  const router = express.Router();
  const app = trustedApp(services);

  router.get("/qrcode-page.js", methodPageScript(PAGE_SCRIPT));

  router.get("/challenges/:id", async (req, res) => {
    const id = checkedId(req);
    await longPoll(
      req,
      res,
      async () => {
        const view = id === undefined ? { state: "expired" as const } : await app.challenges.view(id);
        // The page learns the number and device by posting CHECK (the page re-renders); the poll only says "something changed".
        return view.state === "pending" ? { state: view.state, uri: view.uri } : { state: view.state };
      },
      isFinal,
    );
  });

  router.get("/challenges/:id/qr.svg", async (req, res) => {
    const id = checkedId(req);
    const view = id === undefined ? undefined : await app.challenges.view(id);
    if (view?.state !== "pending") return void res.status(404).set("Cache-Control", "no-store").end();
    await writeQrSvg(res, view.uri);
  });

  // A plugin's services carry both halves of a session lookup: the cookies and sessions, and the directory.
  const signedInSub = async (req: Request) => (await currentSession({ infra: services, policy: services }, req))?.sub;

  router.get("/enrollments/:id", async (req, res) => {
    const id = checkedId(req);
    const sub = await signedInSub(req);
    await longPoll(req, res, async () => (id === undefined || sub === undefined ? undefined : app.enrollments.session(id, sub)), isFinal);
  });

  router.get("/enrollments/:id/qr.svg", async (req, res) => {
    const id = checkedId(req);
    const sub = await signedInSub(req);
    const session = id === undefined || sub === undefined ? undefined : await app.enrollments.session(id, sub);
    if (session?.state !== "pending" || !session.uri) return void res.status(404).set("Cache-Control", "no-store").end();
    await writeQrSvg(res, session.uri);
  });

  return router;
}

/** States after which a challenge or an enrollment changes no more. */
const isFinal = (state: string) => state !== "pending" && state !== "scanned";

function checkedId(req: Request): string | undefined {
  const id = String(req.params.id);
  return ID.test(id) ? id : undefined;
}
