import type { CustomLoginSettings } from "./custom-login-settings.ts";
import type { ScanSessions } from "./scan-sessions.ts";
import type { ExtensionContext, ExtensionHttp, ExtensionPolicy } from "../../plugin-contract/index.ts";

/** What the custom login's routes share: the provider's context, the HTTP layer's services, the sessions. */
export interface CustomLoginServices {
  readonly context: ExtensionContext;
  readonly http: ExtensionHttp;
  readonly sessions: ScanSessions;
  /** custom-login.yaml as the request's policy snapshot has it. */
  settings(policy: ExtensionPolicy): CustomLoginSettings;
  /** The paths of the routes (under the manifest's prefix). */
  readonly paths: CustomLoginPaths;
}

export interface CustomLoginPaths {
  readonly loginJs: string;
  readonly status: string;
  readonly renew: string;
  readonly writeStatus: string;
  readonly authorize: string;
}

export function customLoginPaths(prefix: string): CustomLoginPaths {
  return {
    loginJs: `${prefix}/LoginJs`,
    status: `${prefix}/Status`,
    renew: `${prefix}/Renew`,
    writeStatus: `${prefix}/WriteStatusOperation`,
    authorize: `${prefix}/Authorize`,
  };
}
