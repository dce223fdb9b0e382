/**
 * An upstream eID provider for the broker's tests: the demo's development upstream (config/dev-eid-upstream,
 * citizens mei and ravi) in an OS process of its own, on a port and with a redirect URI of the test's choosing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnStart } from "./start-process.ts";
import { copyConfig, DEMO_CONFIG } from "./test-provider.ts";

export const DEV_UPSTREAM_CONFIG = join(DEMO_CONFIG, "dev-eid-upstream");
/** The client the demo's broker is at the development upstream, and its secret (config/dev-eid-upstream/broker-secret). */
export const BROKER_CLIENT = { id: "portcullis-eid-broker", secretFile: "dev-eid-upstream/broker-secret" } as const;

/** The demo's acr mapping (config/login.yaml): our 2fa asks the upstream for its 2fa, whose acr comes back as ours. */
export const DEMO_EID_ACR = { forward: { "2fa": "2fa" }, performed: { "1fa": "1fa", "2fa": "2fa" } } as const;

/**
 * The broker's login.yaml edits for an upstream at `issuer`: declared as `test-eid` (the demo's client,
 * secret file, claim and acr mappings, sub prefix `cz:`) and named by the eID login type; `acr` replaces the acr mapping.
 */
export function testEidUpstreamEdits(
  issuer: string,
  acr: { forward: Record<string, string>; performed: Record<string, string> } = DEMO_EID_ACR,
): Record<string, unknown> {
  return {
    "eid_upstreams.test-eid": {
      issuer,
      client_id: BROKER_CLIENT.id,
      client_secret: `\${file:${BROKER_CLIENT.secretFile}}`,
      scopes: "openid profile email",
      claims: { name: "name", birthdate: "birthdate", email: "email" },
      sub_prefix: "cz:",
      acr,
    },
    "login_types.eID.upstream": "test-eid",
  };
}

export interface EidUpstreamProcess {
  issuer: string;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts the upstream on `port` (issuer http://127.0.0.1:<port>) accepting the brokers' `redirectUri`s;
 * `loginEdits` change its login.yaml (where its e-mail codes go, for a test that passes its 2fa).
 */
export async function startEidUpstreamProcess(
  port: number,
  redirectUri: string | string[],
  loginEdits: Record<string, unknown> = {},
): Promise<EidUpstreamProcess> {
  const issuer = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-eid-data-"));
  const configDir = copyConfig(
    {
      "provider.yaml": { issuer, "listen.port": port, data_dir: dataDir },
      "clients.yaml": { "clients.0.redirect_uris": [redirectUri].flat() },
      "login.yaml": loginEdits,
    },
    DEV_UPSTREAM_CONFIG,
  );
  const cleanUp = () => {
    rmSync(configDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  const started = await spawnStart(["--config", configDir, "--port", String(port)]);
  const stop = async () => {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill("SIGTERM");
      await started.exited;
    }
    cleanUp();
  };
  if (started.url === undefined) {
    await stop();
    throw new Error(`the eID upstream did not start:\n${started.stderr()}`);
  }
  return { issuer, stderr: started.stderr, stop };
}
