import type { BenchOptions } from "./options.ts";
import { startProvider, type RunningProvider } from "./provider-process.ts";
import type { Scenario, ScenarioName } from "./scenarios.ts";
import { startServerWorker, type RunningServer } from "./workers.ts";

/** The peer's process entry, relative to bench/workers/ (where startServerWorker looks). */
const PEER_SERVER = "../peer/peer-server.ts";
export const PEER_LABEL = "peer: node-oidc-provider";

/**
 * The servers a run loads, all pinned to the server core and up for the whole run: the provider, the bare
 * node:http floor (when a scenario is compared with it), the ceilings and, with --peer, node-oidc-provider.
 * Only one is loaded at a time; the others sit idle, so rounds can alternate between them without
 * restarts (the provider stays warm).
 */
export interface BenchServers {
  provider: RunningProvider;
  bareHttp: RunningServer | undefined;
  ceilings: Map<ScenarioName, RunningServer>;
  peer: RunningServer | undefined;
}

export async function startServers(
  scenarios: readonly Scenario[],
  { ceilings: withCeilings, peer: withPeer, serverCpu }: Pick<BenchOptions, "ceilings" | "peer" | "serverCpu">,
  progress: (message: string) => void,
): Promise<BenchServers> {
  progress("starting the provider");
  const servers: BenchServers = {
    provider: await startProvider(serverCpu, process.env),
    bareHttp: undefined,
    ceilings: new Map(),
    peer: undefined,
  };
  try {
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
  ]);
}
