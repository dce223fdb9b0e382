import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { DestinationStream } from "pino";
import { loadConfig } from "../config/load-config.ts";
import { createLogger } from "../logging/create-logger.ts";
import { createProvider, type Provider } from "../provider.ts";
import { paths } from "./paths.ts";
import { createApp } from "./create-app.ts";
import { answerUnparsableRequests } from "./answer-unparsable-request.ts";

/** How long requests in flight may take to finish when the provider stops. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface StartOptions {
  configDir: string;
  /** Overrides listen.port (0 = any free port). */
  port?: number;
  /** Overrides listen.host. */
  host?: string;
  /** Log destination (tests capture logs); stdout otherwise. */
  logDestination?: DestinationStream;
  /** Print the banner with demo instructions (the CLI does; tests don't). */
  banner?: boolean;
}

export interface RunningProvider {
  url: string;
  provider: Provider;
  server: Server;
  close(): Promise<void>;
}

/** Loads the config, builds the provider and listens. Throws ConfigError for a bad configuration. */
export async function startProvider(options: StartOptions): Promise<RunningProvider> {
  const config = await loadConfig(options.configDir);
  const settings = config.provider;
  const logger = createLogger(settings.logging.level, options.logDestination);
  const provider = await createProvider(config, { logger });
  const server = createServer(createApp(provider));
  answerUnparsableRequests(server);
  // Keep-alive longer than common proxies' idle timeouts, so they close first and never hit a dead socket.
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? settings.listen.host;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? settings.listen.port, host, resolve);
    });
  } catch (err) {
    await provider.close(); // release the store (and its data-directory lock) before giving up
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  logger.info({ url, issuer: provider.issuer, store: provider.store.backend }, "portcullis listening");
  if (options.banner) printBanner(url, provider);

  return {
    url,
    provider,
    server,
    async close() {
      // Stop accepting, let requests in flight finish (nothing half-done is lost), then cut what is left.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(deadline);
      await provider.close();
    },
  };
}

function printBanner(url: string, provider: Provider): void {
  const lines = [
    "",
    `  Portcullis is listening on ${url}`,
    `  issuer:    ${provider.issuer}`,
    `  discovery: ${provider.issuer}/.well-known/openid-configuration`,
    `  store:     ${provider.store.backend}`,
    "",
    "  Try it (demo config):",
    `    curl -s -d grant_type=client_credentials -d client_id=demo-service -d client_secret=demo-service-secret ${url}/connect/token`,
    ...browserLoginLines(provider),
    "  Demo users: alice / alice-password, bob / bob-password (see README.md)",
    "",
  ];
  process.stderr.write(lines.join("\n") + "\n");
}

/** A ready-made authorize URL for the first client that can log in with a browser without PKCE. */
function browserLoginLines(provider: Provider): string[] {
  const client = [...provider.clients.all()].find((c) => c.grantTypes.has("authorization_code") && !c.requirePkce && c.redirectUris.size > 0);
  if (!client) return [];
  const query = new URLSearchParams({
    client_id: client.id,
    redirect_uri: [...client.redirectUris][0]!,
    response_type: "code",
    scope: "openid profile",
    state: "demo",
  });
  return [
    "  Log in with a browser (you end on the client's redirect URI with a code):",
    `    ${provider.issuer}/connect/authorize?${query}`,
    `  Then set up more sign-in methods (TOTP, security key, phone, ...) at ${provider.issuer}${paths.account}`,
    `  The login flows drawn as statecharts: ${provider.issuer}${paths.diagrams}`,
  ];
}
