import { providerClientEntries } from "./bench-clients.ts";
import { startBenchDirectory, type BenchDirectory } from "./bench-directory.ts";
import type { BenchOptions } from "./options.ts";
import { startProvider, type RunningProvider } from "./provider-process.ts";
import type { Scenario, ScenarioName } from "./scenarios.ts";
import { startServerWorker, type RunningServer } from "./workers.ts";

/** The peer's process entry, relative to bench/workers/ (where startServerWorker looks). */
const PEER_SERVER = "../peer/peer-server.ts";
export const PEER_LABEL = "peer: node-oidc-provider";
/** How reports name the provider whose employees are in the LDAP directory. */
export const LDAP_LABEL = "on LDAP";

/**
 * The servers a run loads, all pinned to the server core and up for the whole run: the provider, the bare
 * node:http floor (when a scenario is compared with it), the ceilings, with --peer node-oidc-provider,
 * and with --ldap (the default) slapd and a second provider whose employees are in it. Only one is loaded
 * at a time; the others sit idle, so rounds can alternate between them without restarts (the providers
 * stay warm).
 */
export interface BenchServers {
  provider: RunningProvider;
  bareHttp: RunningServer | undefined;
  ceilings: Map<ScenarioName, RunningServer>;
  peer: RunningServer | undefined;
  /** The provider on the LDAP directory (directory.yaml `type: ldap`, users.yaml empty). */
  ldap: RunningProvider | undefined;
  /** Its directory, slapd: the server of the `directory` scenario. */
  directory: BenchDirectory | undefined;
}

/** Whether a run of these scenarios needs the LDAP directory: a scenario measured on it, or its own cost. */
export function needsDirectory(scenarios: readonly Scenario[], ldap: boolean): boolean {
  return ldap && scenarios.some((s) => s.kind === "directory" || s.ldapDifference !== undefined);
}

export async function startServers(
  scenarios: readonly Scenario[],
  { ceilings: withCeilings, peer: withPeer, ldap: withLdap, serverCpu }: Pick<BenchOptions, "ceilings" | "peer" | "ldap" | "serverCpu">,
  progress: (message: string) => void,
): Promise<BenchServers> {
  progress("starting the provider");
  // The DPoP and private_key_jwt scenarios' clients only when measured: a base revision (bench:compare) may not know them.
  const clients = scenarios.some((s) => s.proof !== undefined) ? providerClientEntries() : [];
  const servers: BenchServers = {
    provider: await startProvider(serverCpu, process.env, undefined, {}, {}, clients),
    bareHttp: undefined,
    ceilings: new Map(),
    peer: undefined,
    ldap: undefined,
    directory: undefined,
  };
  try {
    if (needsDirectory(scenarios, withLdap)) {
      progress(`starting slapd and the provider ${LDAP_LABEL}`);
      servers.directory = await startBenchDirectory(serverCpu);
      servers.ldap = await startProvider(serverCpu, process.env, undefined, {}, servers.directory.providerFiles);
    }
    if (scenarios.some((s) => s.floor === "bare_http"))
      servers.bareHttp = await startServerWorker(serverCpu, "bare-http-server.ts", "bare node:http server");
    for (const scenario of scenarios) {
      if (!withCeilings || !scenario.ceiling) continue;
      progress(`starting the ${scenario.ceiling.label}`);
      servers.ceilings.set(scenario.name, await startServerWorker(serverCpu, scenario.ceiling.worker, scenario.ceiling.label));
    }
    if (withPeer) {
      progress(`starting the ${PEER_LABEL}`);
      servers.peer = await startPeer(serverCpu);
    }
  } catch (error) {
    await stopServers(servers);
    throw error;
  }
  return servers;
}

/** node-oidc-provider configured like the demo (bench/peer/), pinned to `cpu`. */
export function startPeer(cpu: number): Promise<RunningServer> {
  return startServerWorker(cpu, PEER_SERVER, PEER_LABEL);
}

export async function stopServers(servers: BenchServers): Promise<void> {
  await Promise.all([
    servers.provider.stop(),
    servers.bareHttp?.stop(),
    servers.peer?.stop(),
    ...[...servers.ceilings.values()].map((s) => s.stop()),
    // The LDAP provider first: it holds connections to slapd.
    (servers.ldap?.stop() ?? Promise.resolve()).then(() => servers.directory?.stop()),
  ]);
}
