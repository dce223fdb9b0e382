import type { ScanPlan, ScanSession } from "./scan-session.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import { AttemptLimiter, clientAddress, oauthError, type Exchange } from "../../plugin-contract/index.ts";

/**
 * A new scan session for a page (LoginJs, Renew) within the address's budget: every QR code is a record
 * in the shared store, so a loop of script loads from one address must not fill it. Over budget: 429.
 */
export async function startScanSession(
  services: CustomLoginServices,
  ex: Exchange,
  plan: ScanPlan,
  lang: string,
): Promise<{ session: ScanSession; binding: string }> {
  const settings = services.settings(services.context.policy(ex.req));
  const { max, windowMs } = settings.scanSessionsPerIp;
  const limiter = new AttemptLimiter(services.context.store.namespace("rateLimits"), "custom-login-scans", max, windowMs);
  if (!(await limiter.tryAttempt(clientAddress(ex.req, settings.trustProxy)))) {
    throw oauthError("temporarily_unavailable", "too many QR codes requested from this address; try again later", { status: 429 });
  }
  return services.sessions.create(plan, lang, settings);
}
