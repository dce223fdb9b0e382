import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DestinationStream } from "pino";
import type { Clock } from "./time/clock.ts";
import type { Store } from "./stores/store.ts";
import type { LoadedConfig } from "./config/load-config.ts";
import { loadInstalledConfig } from "./extensions/installed-extensions.ts";
import { createLogger } from "./logging/create-logger.ts";
import { bufferedDestination } from "./logging/buffered-destination.ts";
import { createProvider, type Infra } from "./provider.ts";
import { createAuditTrail } from "./audit/create-audit-trail.ts";
import { redactUrl } from "./stores/redact-url.ts";
import { StoreUnavailableError } from "./stores/store-unavailable-error.ts";
import { answerStarting } from "./http/answer-starting.ts";
import { gracefulClose } from "./http/graceful-close.ts";
import { issuerForPort } from "./http/issuer-for-port.ts";
import { createApp } from "./http/create-app.ts";
import { answerUnparsableRequests } from "./http/answer-unparsable-request.ts";
import { serverOptions } from "./http/server-options.ts";
import { StartupError } from "./http/startup-error.ts";
import { createProviderMetrics } from "./metrics/provider-metrics.ts";
import { startMetricsServer, type MetricsServer } from "./metrics/metrics-server.ts";
import { createReloader } from "./reload/provider-reloader.ts";
import type { ReloadResult } from "./reload/reload-provider.ts";
import { watchConfig } from "./reload/watch-config.ts";
import { logFirstUseOnSignedLinks } from "./login-policy/first-use-on-signed-links.ts";
import { logExpiringClientSecrets } from "./oauth/expiring-client-secrets.ts";

/**
 * When the provider stops (src/http/graceful-close.ts), requests arriving on open keep-alive connections are
 * still answered, with `Connection: close`, for this long; then the connections that stayed idle are closed.
 * A client in the middle of its work sends its next request within milliseconds, so 2 s leaves a busy
 * machine ample room, and a client silent that long is idle, not racing the close.
 */
const SHUTDOWN_DRAIN_MS = 2_000;
/** Requests in flight may take up to this long, counted from the start of the drain, before whatever is left is cut: it bounds the stop. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface StartOptions {
  configDir: string;
  /** Overrides listen.port (0 = any free port); a loopback issuer on listen.port moves with it. */
  port?: number;
  /** Overrides listen.host. */
  host?: string;
  /** Log destination (tests capture logs); stdout otherwise. */
  logDestination?: DestinationStream;
  /** The provider's clock (tests move it); the system clock otherwise. */
  clock?: Clock;
  /** A store to use instead of the one provider.yaml names (tests wrap one to count its operations); not closed by the provider. */
  store?: Store;
  /** The configuration, when the caller has loaded it already (the start command does, for `listen.workers`). */
  config?: LoadedConfig;
  /** This process is cluster worker N (src/cluster/): its metrics go to the primary, which serves them. */
  worker?: number;
  /**
   * Overrides SHUTDOWN_DRAIN_MS: a provider in a test's own process, whose only client is the test that
   * closes it, passes 0 (its idle keep-alive connections would hold every close for the drain period).
   */
  drainMs?: number;
}

export interface RunningProvider {
  url: string;
  /** The running infrastructure (its policy snapshot in `provider.policies`). */
  provider: Infra;
  /** The configured issuer, when it moved with an overriding port (src/http/issuer-for-port.ts). */
  issuerMovedFrom?: string;
  server: Server;
  /** Reloads the configuration without a restart (src/reload/); SIGHUP and the config watch call it too. */
  reload(): Promise<ReloadResult>;
  /** Stops accepting connections and serves open ones as before until close() (src/http/graceful-close.ts). */
  stopAccepting(): void;
  close(): Promise<void>;
}

/**
 * Loads the config, binds the port, builds the provider and serves. The port is bound before the store is
 * opened or a key generated, so a busy port fails the start at once (EADDRINUSE) with nothing written
 * (a cluster worker, whose port is its primary's, binds last instead).
 * Throws ConfigError for a bad configuration, StartupError for a store that is down.
 */
export async function startProvider(options: StartOptions): Promise<RunningProvider> {
  const loaded = options.config ?? (await loadInstalledConfig(options.configDir));
  const settings = loaded.provider;
  // Buffered stdout unless a test captures the log: lines go out in batches instead of one write syscall
  // per line (measured ~20 µs of a ~390 µs token request, docs/performance.md). Ended by close().
  const ownLog = options.logDestination === undefined ? bufferedDestination(1) : undefined;
  const logger = createLogger(settings.logging.level, options.logDestination ?? ownLog!);
  // Created before anything else: a cluster worker answers the primary's metrics requests from now on.
  const metrics = settings.metrics ? createProviderMetrics({ worker: options.worker }) : undefined;
  const server = createServer(serverOptions(settings.listen));
  answerUnparsableRequests(server);
  const stop = gracefulClose(server, { drainMs: options.drainMs ?? SHUTDOWN_DRAIN_MS, graceMs: SHUTDOWN_GRACE_MS });
  server.on("request", answerStarting);
  const host = options.host ?? settings.listen.host;
  const bind = () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? settings.listen.port, host, () => {
        server.off("error", reject);
        // From now on a server error (an accept failing when out of file descriptors) is logged, not fatal.
        server.on("error", (err) => logger.error({ err }, "http server error"));
        resolve();
      });
    });
  // A single process binds first, so that a busy port is found before anything is written. A cluster
  // worker shares its primary's port, and the primary hands it connections as soon as it listens: it
  // listens once it can serve them, or a replaced worker would answer 503 "starting" to its share.
  const bindFirst = options.worker === undefined || (options.port ?? settings.listen.port) === 0;
  if (bindFirst) await bind();
  const port = bindFirst ? (server.address() as AddressInfo).port : (options.port ?? settings.listen.port);
  const issuer = issuerForPort(settings.issuer, { configured: settings.listen.port, override: options.port, listened: port });
  let provider: Infra;
  let metricsServer: MetricsServer | undefined;
  try {
    // Opened once the port is ours (a busy port writes nothing); an audit file the provider cannot write stops the start.
    const audit = createAuditTrail(settings.audit, settings.data_dir, undefined, (err) =>
      logger.error({ err }, "audit trail write failed"),
    );
    // In a cluster the primary serves the metrics of all workers on metrics.listen.
    if (metrics && settings.metrics?.listen !== undefined && options.worker === undefined) {
      metricsServer = await startMetricsServer(settings.metrics.listen, settings.metrics.token, metrics.registry);
      logger.info({ url: metricsServer.url }, "metrics listening");
    }
    provider = await createProvider(withIssuer(loaded, issuer.issuer), {
      logger,
      metrics,
      audit,
      ...(options.clock && { clock: options.clock }),
      ...(options.store && { store: options.store }),
      // A development eID upstream (demo only) is another provider in this process, logging where this one does
      // and stopping as this one does.
      launchProvider: (upstream) =>
        startProvider({
          ...upstream,
          ...(options.logDestination && { logDestination: options.logDestination }),
          ...(options.drainMs !== undefined && { drainMs: options.drainMs }),
        }),
    });
  } catch (error) {
    await stop.close();
    await metricsServer?.close();
    if (error instanceof StoreUnavailableError) throw storeDown(error, settings.store.url);
    throw error;
  }
  server.off("request", answerStarting);
  server.on("request", createApp(provider, stop.stopping));
  if (!bindFirst) {
    try {
      await bind();
    } catch (error) {
      await metricsServer?.close();
      await provider.close();
      throw error;
    }
  }
  const reloader = createReloader(provider, loaded);
  await reloader.recordStart();
  const stopWatching = settings.reload.watch ? watchConfig(loaded, reloader, logger) : () => {};
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  logger.info({ url, issuer: provider.issuer, store: provider.store.backend }, "portcullis listening");
  if (issuer.movedFrom) logger.info({ issuer: provider.issuer, configured: issuer.movedFrom }, "issuer moved to the overriding port");
  if (issuer.warning) logger.warn({ issuer: provider.issuer, port }, issuer.warning);
  logFirstUseOnSignedLinks(logger, loaded.login);
  logExpiringClientSecrets(logger, loaded.clients, provider.clock());

  return {
    url,
    provider,
    ...(issuer.movedFrom !== undefined && { issuerMovedFrom: issuer.movedFrom }),
    server,
    reload: () => reloader.reload(),
    stopAccepting: () => stop.stopAccepting(),
    async close() {
      stopWatching();
      await stop.close();
      await metricsServer?.close();
      await provider.close();
      await new Promise<void>((resolve) => (ownLog ? ownLog.end(resolve) : resolve()));
    },
  };
}

function withIssuer(config: LoadedConfig, issuer: string): LoadedConfig {
  return issuer === config.provider.issuer ? config : { ...config, provider: { ...config.provider, issuer } };
}

/** One line that names the store (without credentials) and why it did not answer. */
function storeDown(error: StoreUnavailableError, url: string): StartupError {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  const reason = typeof code === "string" ? ` (${code})` : "";
  return new StartupError(
    `the ${error.backend} store at ${redactUrl(url)} is unavailable${reason}: start it, or correct store.url in provider.yaml`,
  );
}
