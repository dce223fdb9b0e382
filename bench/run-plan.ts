import { tokenUrlOf } from "./bench-clients.ts";
import { bareHttpFloorSample, sampleLoopFloor } from "./floors.ts";
import { runDirectoryLoad, runFlowLoad, runLoad } from "./load.ts";
import {
  problems,
  type AccessTokenFormat,
  type FlowJob,
  type FlowKind,
  type LoadRequest,
  type LoadResult,
  type SessionSource,
} from "./load-protocol.ts";
import { LATER_ROUND_WARMUP_SECONDS, type BenchOptions } from "./options.ts";
import type { FloorSample } from "./results.ts";
import type { RecordedWindow } from "./round-ratios.ts";
import type { ServerRole, Step } from "./round-plan.ts";
import { SCENARIOS, type FloorName, type Scenario, type ScenarioName } from "./scenarios.ts";
import { LDAP_LABEL, PEER_LABEL, type BenchServers } from "./servers.ts";
import type { RunningServer } from "./workers.ts";

/** What a run recorded, in the order it was taken: each floor's samples, each server's windows per scenario. */
export interface Recorded {
  floors: Partial<Record<FloorName, FloorSample[]>>;
  windows: Map<`${ScenarioName} ${ServerRole}`, RecordedWindow[]>;
}

interface Run {
  servers: BenchServers;
  /** The request each request scenario repeats, per server (userinfo's carries a token of that server). */
  requests: ReadonlyMap<ScenarioName, LoadRequest>;
  peerRequests: ReadonlyMap<ScenarioName, LoadRequest>;
  options: BenchOptions;
  progress: (message: string) => void;
}

/** What a load generator repeats in a window: one request over many connections, or whole flows by virtual users. */
type Load =
  | { kind: "request"; request: LoadRequest; connections: number }
  | {
      kind: "flow";
      flow: FlowKind;
      sessionFrom: SessionSource;
      users: number;
      accessTokens: AccessTokenFormat | undefined;
      proof: FlowJob["proof"];
    }
  | { kind: "directory"; users: number };

const BARE_HTTP_REQUEST: LoadRequest = { path: "/", method: "GET" };
const LOOP_FLOOR_WHAT = { rs256: "RS256 signatures", es256: "ES256 verifications", scrypt: "scrypt password verifications" } as const;

/**
 * Runs the plan (round-plan.ts) step by step. A window records the index of its floor's latest sample
 * (right before its round) and of the next one (right after), which the plan guarantees will be taken.
 */
export async function runPlan(plan: readonly Step[], run: Run): Promise<Recorded> {
  const recorded: Recorded = { floors: {}, windows: new Map() };
  for (const step of plan) {
    if (step.kind === "floor") {
      const samples = recorded.floors[step.floor] ?? [];
      recorded.floors[step.floor] = samples;
      samples.push(await sampleFloor(run, step.floor, samples.length));
      continue;
    }
    const scenario = SCENARIOS[step.scenario];
    const { server, who } = serverOf(run.servers, scenario, step.server);
    const what = `${scenario.label}, round ${step.round + 1}/${run.options.rounds}: ${who}`;
    const result = await loadWindow(run, server, loadOf(run, scenario, step.server, server), warmup(run.options, step.round), what);
    const before = recorded.floors[scenario.floor]!.length - 1;
    const key = `${scenario.name} ${step.server}` as const;
    if (!recorded.windows.has(key)) recorded.windows.set(key, []);
    recorded.windows.get(key)!.push({ round: step.round, result, problems: problems(result), floorSamples: [before, before + 1] });
  }
  return recorded;
}

/** The server that serves `role`'s windows of `scenario`, and how progress names it. */
function serverOf(servers: BenchServers, scenario: Scenario, role: ServerRole): { server: RunningServer; who: string } {
  switch (role) {
    case "provider":
      // The directory's own cost is measured on the directory itself.
      return scenario.kind === "directory" ? { server: servers.directory!, who: "slapd" } : { server: servers.provider, who: "provider" };
    case "peer":
      return { server: servers.peer!, who: PEER_LABEL };
    case "ldap":
      return { server: servers.ldap!, who: `provider ${LDAP_LABEL}` };
    case "ceiling":
      return { server: servers.ceilings.get(scenario.name)!, who: scenario.ceiling!.label };
  }
}

/** A server's first window of a scenario gets the full warm-up; in later rounds it is warm already. */
function warmup(options: BenchOptions, round: number): number {
  return round === 0 ? options.warmupSeconds : Math.min(options.warmupSeconds, LATER_ROUND_WARMUP_SECONDS);
}

function loadOf(run: Run, scenario: Scenario, role: ServerRole, server: RunningServer): Load {
  const { options } = run;
  if (scenario.kind === "request") {
    const requests = role === "peer" ? run.peerRequests : run.requests;
    return {
      kind: "request",
      request: requests.get(scenario.name)!,
      connections: scenario.connections === "token" ? options.tokenConnections : options.connections,
    };
  }
  const users = scenario.users === "login" ? options.loginUsers : options.flowUsers;
  if (scenario.kind === "directory") return { kind: "directory", users };
  return {
    kind: "flow",
    flow: scenario.flow,
    // The ceilings have no login page; the providers and the peer do.
    sessionFrom: role === "ceiling" ? "bench-endpoint" : "login-page",
    users,
    accessTokens: scenario.accessTokens,
    proof: scenario.proof && { kind: scenario.proof.kind, tokenUrl: tokenUrlOf(role === "peer" ? "peer" : "provider", server.baseUrl) },
  };
}

async function sampleFloor(run: Run, floor: FloorName, index: number): Promise<FloorSample> {
  if (floor === "bare_http") {
    const load: Load = { kind: "request", request: BARE_HTTP_REQUEST, connections: run.options.connections };
    return bareHttpFloorSample(await loadWindow(run, run.servers.bareHttp!, load, warmup(run.options, index), "floor: bare node:http"));
  }
  run.progress(`floor: ${LOOP_FLOOR_WHAT[floor]} on one core`);
  return sampleLoopFloor(floor, run.options.serverCpu);
}

function loadWindow(run: Run, server: RunningServer, load: Load, warmupSeconds: number, what: string): Promise<LoadResult> {
  const { options } = run;
  const window = {
    name: what,
    warmupSeconds,
    durationSeconds: options.durationSeconds,
    serverPid: server.pid,
    serverCpu: options.serverCpu,
    loadCpu: options.loadCpu,
  };
  if (load.kind === "request") {
    run.progress(`${what}, ${load.connections} connections`);
    return runLoad({ ...window, baseUrl: server.baseUrl, request: load.request, connections: load.connections });
  }
  run.progress(`${what}, ${load.users} virtual users`);
  // The directory's checks go to slapd (the server measured) as the provider would send them.
  if (load.kind === "directory") return runDirectoryLoad({ ...window, ...run.servers.directory!.target, users: load.users });
  const { flow, sessionFrom, users, accessTokens, proof } = load;
  return runFlowLoad({ ...window, baseUrl: server.baseUrl, flow, sessionFrom, users, accessTokens, ...(proof ? { proof } : {}) });
}
