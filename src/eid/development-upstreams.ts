import { resolve } from "node:path";
import type { Logger } from "pino";
import { isLoopbackHttp } from "../http-kit/loopback-url.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { EidRelyingPartyOptions } from "./eid-relying-party.ts";

/** Starts a provider from a config directory on a port, in this process (start-provider.ts's startProvider). */
export type LaunchProvider = (options: { configDir: string; port: number }) => Promise<{ url: string; close(): Promise<void> }>;

/**
 * DEMO ONLY: the upstreams declared with `development` are second Portcullis providers that this one
 * starts itself, so the demo's eID login needs no outside service. Each starts just before the first
 * discovery of its upstream (the first eID login), not at start-up: a provider that never sees an eID
 * login (most test runs, any second `npm start`) never binds its port. A failed start is logged and
 * tried again at the next login; the login itself then fails as "unavailable" unless something
 * already answers at the issuer. Only a provider with a loopback http:// issuer starts one.
 */
export class DevelopmentUpstreams {
  private readonly configDir: string;
  private readonly launch: LaunchProvider | undefined;
  private readonly logger: Logger;
  private readonly running = new Map<string, Promise<{ close(): Promise<void> } | undefined>>();

  constructor(configDir: string, launch: LaunchProvider | undefined, logger: Logger) {
    this.configDir = configDir;
    this.launch = launch;
    this.logger = logger;
  }

  /**
   * The relying-party options of each development upstream: start it before discovery. Beside an issuer
   * that is not loopback http:// (production) none starts, whatever login.yaml says: a warning instead.
   */
  options(login: LoginFile, issuer: string): Map<string, EidRelyingPartyOptions> {
    const options = new Map<string, EidRelyingPartyOptions>();
    if (this.launch === undefined) return options;
    for (const [id, upstream] of Object.entries(login.eid_upstreams ?? {})) {
      const development = upstream.development;
      if (development === undefined) continue;
      if (!isLoopbackHttp(issuer)) {
        this.logger.warn(
          { upstream: id, issuer },
          "development eID upstream not started: this provider's issuer is not a loopback http:// URL (declare the real eID provider)",
        );
        continue;
      }
      options.set(id, { beforeDiscovery: () => this.start(id, resolve(this.configDir, development.config), development.port) });
    }
    return options;
  }

  /** Stops the upstreams this provider started. */
  async close(): Promise<void> {
    const started = await Promise.all(this.running.values());
    this.running.clear();
    await Promise.all(started.map((upstream) => upstream?.close()));
  }

  private async start(id: string, configDir: string, port: number): Promise<void> {
    let starting = this.running.get(id);
    if (starting === undefined) {
      starting = this.launch!({ configDir, port }).then(
        (upstream) => {
          this.logger.info({ upstream: id, url: upstream.url, configDir }, "development eID upstream started");
          return upstream;
        },
        (err: unknown) => {
          this.running.delete(id);
          this.logger.warn(
            { upstream: id, port, configDir, err: { message: (err as Error).message } },
            "development eID upstream did not start",
          );
          return undefined;
        },
      );
      this.running.set(id, starting);
    }
    await starting;
  }
}
