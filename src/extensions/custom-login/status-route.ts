import { SETTLED_DISPLAY_STATES, type ScanDisplayState } from "./scan-session.ts";
import { displayState } from "./scan-progress.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import { closedFlag, waitForChange, writeJson, type Exchange, type ProtocolRoute } from "../../plugin-contract/index.ts";

/** Any origin may ask: the binding secret, not a cookie, says which page is asking. */
export const ANY_ORIGIN = { "Access-Control-Allow-Origin": "*" };

/**
 * GET /Acme/CustomLogin/Status?session_id=&binding=[&seen=<state>]: what the page shows now (contract:
 * waiting, scanned, auditing, approved, refused, expired, done). With `seen` the answer waits until the
 * state differs (a long-poll, src/http-kit/long-poll.ts), and stops when the page goes away. An unknown
 * session and a wrong binding both look expired: a guessed id learns nothing.
 */
export function statusRoute(services: CustomLoginServices): ProtocolRoute {
  const read = async (id: string, binding: string | undefined): Promise<ScanDisplayState> => {
    const session = await services.sessions.find(id);
    return session && services.sessions.isBound(session, binding) ? displayState(session) : "expired";
  };
  return {
    path: services.paths.status,
    methods: ["GET"],
    readsBody: false,
    handle: async (ex: Exchange) => {
      const query = new URLSearchParams((ex.req.url ?? "").split("?")[1] ?? "");
      const id = query.get("session_id") ?? "";
      const binding = query.get("binding") ?? undefined;
      const seen = query.get("seen") ?? undefined;
      const gone = closedFlag(ex.res);
      const state = await waitForChange(
        () => read(id, binding),
        (value) => value === seen && !SETTLED_DISPLAY_STATES.has(value),
        gone,
      );
      if (!gone()) writeJson(ex.res, 200, { state }, { headers: ANY_ORIGIN });
    },
  };
}
