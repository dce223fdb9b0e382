import { CUSTOM_LOGIN_MANIFEST } from "./manifest.ts";
import { customLoginSettings } from "./custom-login-settings.ts";
import { customLoginPaths, type CustomLoginServices } from "./custom-login-services.ts";
import { ScanSessions } from "./scan-sessions.ts";
import { loginJsRoute } from "./login-js-route.ts";
import { statusRoute } from "./status-route.ts";
import { renewRoute } from "./renew-route.ts";
import { writeStatusRoute } from "./write-status-route.ts";
import { pcLoginRoute } from "./pc-login-route.ts";
import { recordPhoneScan } from "./phone-scan.ts";
import type { Extension, ExtensionPolicy } from "../../plugin-contract/index.ts";

/**
 * The custom QR-code login (SPEC "Custom QR-code login"; docs/custom-login.md): a relying app's page
 * loads the AcmeSSO script from LoginJs and shows its QR code; the trusted app scans it (the phone
 * side's authorize request, recorded where its code is issued); the mobile page writes its custom
 * operation's status; the page follows it (Status, Renew) and finally logs the PC in (Authorize).
 */
export const customLoginExtension: Extension = {
  manifest: CUSTOM_LOGIN_MANIFEST,
  start(context) {
    const sessions = new ScanSessions(context.store, context.clock);
    const settings = (policy: ExtensionPolicy) => customLoginSettings(policy.config);
    const paths = customLoginPaths(CUSTOM_LOGIN_MANIFEST.routePrefix);
    // The routes need the HTTP layer's services; the scan hook does not (it runs inside authorize).
    const base = { context, sessions, settings, paths };
    return {
      routes(http) {
        const services: CustomLoginServices = { ...base, http };
        return [loginJsRoute(services), statusRoute(services), renewRoute(services), writeStatusRoute(services), pcLoginRoute(services)];
      },
      onAuthorization: (authorization) => recordPhoneScan(base, authorization),
    };
  },
};
