import { customScanClaim } from "./custom-scan-claim.ts";
import type { ScanSession, SideRequest } from "./scan-session.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import {
  invalidRequest,
  parseScope,
  readFormBody,
  toOAuthError,
  type AuthorizationRequest,
  type Exchange,
  type ProtocolRoute,
} from "../../plugin-contract/index.ts";

/** The custom login's amr: the user proved themselves with the trusted app on the phone (a QR scan). */
const AMR = ["qrcode"];

/**
 * POST /Acme/CustomLogin/Authorize — the PC side's authorize request (the spec's "slightly modified
 * address"): the script posts the session id, its binding secret and the PC request LoginJs declared.
 * The scanner is logged in from the session, for the bound browser only and once (the PC machine's
 * LOG_IN), with no SSO session; the answer goes to PCRedirectUrl with `state=<data>|<PCState>` — the
 * only flow that prefixes state — and the ID token gets `custom_scan`. Any refusal goes to
 * PCRedirectUrl as access_denied with the plain PCState; a request naming no live session is a page.
 */
export function pcLoginRoute(services: CustomLoginServices): ProtocolRoute {
  const { http } = services;
  return {
    path: services.paths.authorize,
    methods: ["POST"],
    readsBody: true,
    handle: async (ex: Exchange) => {
      let refusal: AuthorizationRequest | undefined;
      try {
        const form = readFormBody(ex, { maxParameterLength: 2048 });
        const found = await services.sessions.find(form.get("session_id") ?? "");
        if (!found || !sameRequest(found.plan.pc, form)) throw invalidRequest("no such custom QR-code login, or not this client's");
        const pc = pcRequest(found.plan.pc, found.plan.pc.state);
        refusal = pc;
        const policy = services.context.policy(ex.req);
        const client = policy.clients.get(pc.clientId);
        // The policy may have changed since LoginJs: the client must still have this redirect URI.
        if (!client?.redirectUris.has(pc.redirectUri))
          throw invalidRequest("PCRedirectUrl is no longer a registered redirect URI of its client");
        const change = await services.sessions.logIn(found.id, form.get("binding"));
        if (change.outcome !== "applied")
          return http.refuse(ex, pc, refusalReason(change.outcome === "rejected" ? change.session : undefined));
        const phone = change.session.phone.context;
        const login = { sub: phone.scanner!, authTime: Math.floor(phone.scannedAt! / 1000), amr: AMR, acr: "1fa", methods: AMR };
        await http.completeLogin(ex, pcRequest(found.plan.pc, `${phone.data ?? ""}|${found.plan.pc.state ?? ""}`), login, {
          idTokenClaims: { custom_scan: customScanClaim(phone) },
        });
      } catch (error) {
        if (refusal && !ex.res.headersSent) {
          // The page gets its access_denied, but an unexpected failure (the session may be spent) must reach the log.
          toOAuthError(error, services.context.logger, ex);
          return http.refuse(ex, refusal, "the custom QR-code login could not be completed");
        }
        http.errorPage(ex, error);
      }
    },
    fail: (ex, error) => http.errorPage(ex, error),
  };
}

/** The posted fields name the PC request LoginJs declared (response_type code; client, redirect URI and scope as declared). */
function sameRequest(declared: SideRequest, form: ReadonlyMap<string, string>): boolean {
  return (
    form.get("response_type") === "code" &&
    form.get("client_id") === declared.clientId &&
    form.get("redirect_uri") === declared.redirectUri &&
    parseScope(form.get("scope")).join(" ") === declared.scopes.join(" ") &&
    (form.get("state") ?? undefined) === declared.state
  );
}

function pcRequest(side: SideRequest, state: string | undefined): AuthorizationRequest {
  return {
    clientId: side.clientId,
    redirectUri: side.redirectUri,
    responseMode: "query",
    scopes: side.scopes,
    prompt: [],
    framed: false,
    ...(state !== undefined && { state }),
  };
}

/** Why the session cannot log this browser in (the client learns only that much). */
function refusalReason(session: ScanSession | undefined): string {
  switch (session?.pc.value) {
    case "loggedIn":
      return "this custom QR-code login was used already";
    case "refused":
      return "the login was refused on the phone";
    case "readyToLogIn":
      return "this browser is not the one the QR code was shown in";
    default:
      return "the custom QR-code login is not finished, or has expired";
  }
}
