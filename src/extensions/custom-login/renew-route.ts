import { sessionScriptData } from "./session-script-data.ts";
import { startScanSession } from "./start-scan-session.ts";
import { ANY_ORIGIN } from "./status-route.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import { invalidRequest, readFormBody, writeError, writeJson, type Exchange, type ProtocolRoute } from "../../plugin-contract/index.ts";

/**
 * POST /Acme/CustomLogin/Renew (form: session_id, binding): a fresh QR for a page whose QR expired
 * before anyone scanned it — a new session with the same plan and a new binding secret; the old one
 * ends. A scanned session is never renewed: its operation belongs to the phone that scanned it.
 */
export function renewRoute(services: CustomLoginServices): ProtocolRoute {
  return {
    path: services.paths.renew,
    methods: ["POST"],
    readsBody: true,
    handle: async (ex: Exchange) => {
      const form = readFormBody(ex, { maxParameterLength: 256 });
      const old = await services.sessions.find(form.get("session_id") ?? "");
      if (!old || !services.sessions.isBound(old, form.get("binding"))) throw invalidRequest("no such scan session");
      if (old.phone.context.scannedAt !== undefined) throw invalidRequest("the QR code was scanned: its session cannot be renewed");
      const { session, binding } = await startScanSession(services, ex, old.plan, old.lang);
      await services.sessions.end(old.id);
      writeJson(ex.res, 200, await sessionScriptData(services, session, binding), { headers: ANY_ORIGIN });
    },
    fail: (ex, error) => {
      // The page on another origin must be able to read why.
      ex.res.setHeader("Access-Control-Allow-Origin", "*");
      writeError(ex.res, error, services.context.logger, ex);
    },
  };
}
