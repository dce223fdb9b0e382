import { createServer } from "node:http";
import { join } from "node:path";
import Provider from "oidc-provider";
import { DEMO_ISSUER } from "../demo-accounts.ts";
import { serveOnLoopback } from "../workers/loopback-server.ts";
import { PROJECT_ROOT } from "../workers.ts";
import { peerAccounts } from "./peer-accounts.ts";
import { peerConfiguration } from "./peer-configuration.ts";
import { INTERACTION_PATH, peerLogin } from "./peer-login.ts";

/**
 * The bench's peer: node-oidc-provider configured like the demo (peer-configuration.ts) with the demo's
 * users (peer-accounts.ts) and a password login page (peer-login.ts), on node:http. Started by the bench
 * pinned to the provider's core; listens on a free loopback port, prints `{"port":N}`, serves until SIGTERM.
 * It issues tokens with the demo's issuer, as the provider started by the bench does.
 */
const accounts = peerAccounts(join(PROJECT_ROOT, "config"));
const provider = new Provider(DEMO_ISSUER, peerConfiguration(accounts));
// A client's mistake is its 4xx answer; only the provider's own failures are worth a line.
provider.on("server_error", (_ctx, error) => process.stderr.write(`peer server_error: ${String((error as Error)?.stack ?? error)}\n`));
const oidc = provider.callback();
const login = peerLogin(provider, accounts);

serveOnLoopback(
  createServer((req, res) => {
    if (req.url?.startsWith(INTERACTION_PATH)) {
      login(req, res).catch((error: unknown) => {
        process.stderr.write(`peer login page failed: ${String((error as Error)?.stack ?? error)}\n`);
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    oidc(req, res);
  }),
);
