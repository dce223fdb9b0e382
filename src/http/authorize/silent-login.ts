import type { Infra } from "../../infra/infra.ts";
import { pluginServices } from "../../infra/live-services.ts";
import type { Authentication, AuthorizationRequest } from "../../oauth/authorization-request.ts";
import { epochSeconds } from "../../time/clock.ts";
import { NO_APP_EVIDENCE, type AppEvidenceWanted } from "../../trusted-app/app-evidence.ts";
import { DEVICE_ENROLLMENT_METHOD } from "../../trusted-app/device-registry.ts";
import { DeviceJwsError } from "../../trusted-app/device-jws.ts";
import { verifySilentLoginToken, type SilentLogin } from "../../trusted-app/silent-login-token.ts";
import type { LoginPlan } from "../../login-policy/plan-login.ts";

/**
 * Whether a silent login can serve the plan: a one-factor login that no acr value narrows to methods
 * other than the device's (must_bfido asks for the app's FIDO2 credential, which the token does not prove).
 */
export function silentLoginServes(plan: LoginPlan): boolean {
  return plan.flow === "single_factor" && (plan.requiredMethods?.includes(DEVICE_ENROLLMENT_METHOD) ?? true);
}

/**
 * The trusted app's embedded web view (DESIGN "Trusted environment"): the app opens the authorize
 * request with a silent-login token its device signed for this client (src/trusted-app/
 * silent-login-token.ts), and a valid one logs the device's user in without a page — a login by the
 * trusted-app device, so its amr is the qrcode method's (the method that enrolls devices; without it
 * configured there is no silent login). `wanted` is what the login plan asks of the app (acr_values
 * app_gps / app_faceid): the token must carry it, and it becomes the login's evidence under `app`.
 * A refused token (evidence missing or bad included), or one for another user than id_token_hint
 * names, is logged and ignored: the user logs in as usual, where the scan asks for the same evidence.
 * `token` is the request's silent-login parameter (SILENT_LOGIN_PARAMETER), which the endpoint reads.
 */
export async function silentLogin(
  infra: Infra,
  token: string,
  request: AuthorizationRequest,
  wanted: AppEvidenceWanted = NO_APP_EVIDENCE,
): Promise<Authentication | undefined> {
  const method = infra.methods.get(DEVICE_ENROLLMENT_METHOD);
  if (!method) return undefined;
  let login: SilentLogin;
  try {
    login = await verifySilentLoginToken(pluginServices(infra), token, request.clientId, wanted);
  } catch (err) {
    if (!(err instanceof DeviceJwsError)) throw err;
    infra.logger.warn({ event: "silent_login_refused", client: request.clientId, reason: err.reason }, "silent-login token refused");
    return undefined;
  }
  if (request.hintSub !== undefined && request.hintSub !== login.sub) return undefined;
  const evidence = Object.keys(login.evidence).length > 0 ? { evidence: { app: { ...login.evidence } } } : {};
  return {
    sub: login.sub,
    authTime: epochSeconds(infra.clock),
    amr: [method.amr],
    acr: "1fa",
    methods: [DEVICE_ENROLLMENT_METHOD],
    ...evidence,
  };
}
