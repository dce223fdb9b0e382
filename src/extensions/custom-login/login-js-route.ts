import { startScanSession } from "./start-scan-session.ts";
import { LoginJsError, planScan } from "./login-js-request.ts";
import { loginErrorScript, loginScript } from "./script/login-script.ts";
import { writeScript } from "./script-response.ts";
import { sessionScriptData } from "./session-script-data.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import { OAuthError, formatScope, toOAuthError, type Exchange, type ProtocolRoute } from "../../plugin-contract/index.ts";

/** The prompts of the spec's AcmeSSO options (and the script's reload hint), by name and UI string key. */
const PROMPTS = {
  scanPrompt: "custom-login.scan_prompt",
  s0Prompt: "custom-login.s0_prompt",
  s5Prompt: "custom-login.s5_prompt",
  sn10Prompt: "custom-login.sn10_prompt",
  s10Prompt: "custom-login.s10_prompt",
  // Not an option: what the page says when its QR can no longer be renewed.
  reloadHint: "custom-login.reload_hint",
} as const;

/**
 * GET /Acme/CustomLogin/LoginJs (SPEC "Custom QR-code login: login page script"): checks the
 * parameters, starts a scan session and answers the AcmeSSO script with it. Bad parameters get a 400
 * script that reports the problem in the console and in the QR container. `lang` (not in the spec)
 * picks the prompts' language; the browser's Accept-Language otherwise.
 */
export function loginJsRoute(services: CustomLoginServices): ProtocolRoute {
  const { paths, http } = services;
  return {
    path: paths.loginJs,
    methods: ["GET"],
    readsBody: false,
    handle: async (ex: Exchange) => {
      const query = new URLSearchParams((ex.req.url ?? "").split("?")[1] ?? "");
      const policy = services.context.policy(ex.req);
      const settings = services.settings(policy);
      let plan;
      try {
        plan = planScan(query, policy, settings);
      } catch (error) {
        if (error instanceof LoginJsError) return writeScript(ex.res, errorStatus(ex, 400), loginErrorScript(error.message));
        throw error;
      }
      const lang = query.get("lang") ?? undefined;
      const prompts = Object.fromEntries(Object.entries(PROMPTS).map(([option, key]) => [option, http.translate(ex, lang, key)]));
      let started;
      try {
        started = await startScanSession(services, ex, plan, lang ?? "");
      } catch (error) {
        if (error instanceof OAuthError && error.status === 429)
          return writeScript(ex.res, errorStatus(ex, 429), loginErrorScript(error.description));
        throw error;
      }
      const { session, binding } = started;
      const script = loginScript({
        ...(await sessionScriptData(services, session, binding)),
        statusUrl: `${services.context.issuer}${paths.status}`,
        renewUrl: `${services.context.issuer}${paths.renew}`,
        authorizeUrl: `${services.context.issuer}${paths.authorize}`,
        pcAuthorize: {
          client_id: plan.pc.clientId,
          redirect_uri: plan.pc.redirectUri,
          scope: formatScope(plan.pc.scopes),
          response_type: "code",
          ...(plan.pc.state !== undefined && { state: plan.pc.state }),
        },
        prompts,
      });
      writeScript(ex.res, 200, script);
    },
    // Any failure (a POST, the store down) is still answered as a script, so the page says why.
    fail: (ex, error) => {
      const known = toOAuthError(error, services.context.logger, ex);
      writeScript(
        ex.res,
        known.status,
        loginErrorScript(known.status >= 500 ? "the custom QR-code login is not available now, try again later" : known.description),
      );
    },
  };
}

/**
 * A parameter error is a 400 (too many QR codes: 429) — except for a browser's <script> tag (Sec-Fetch-Dest: script): browsers
 * run no script from a response that is not 2xx (HTML "fetch a classic script"), so the script that
 * reports the error in the console and in the container would never run. That tag gets it with a 200.
 */
function errorStatus(ex: Exchange, status: number): number {
  return ex.req.headers["sec-fetch-dest"] === "script" ? 200 : status;
}
