import { parseArgs } from "node:util";
import { SCENARIO_NAMES, type ScenarioName } from "./scenarios.ts";

/** What one `npm run bench` does. Every option has an environment variable so CI can set it without argv. */
export interface BenchOptions {
  /** Seconds each load window is recorded for, after its warm-up. */
  durationSeconds: number;
  /**
   * Seconds of load before a server's first recorded window of a scenario (JIT, connection setup, caches);
   * not counted. Later rounds use at most LATER_ROUND_WARMUP_SECONDS: the server is warm by then.
   */
  warmupSeconds: number;
  /** Rounds per scenario: each a floor sample and the scenario's windows, closed by the next floor sample. */
  rounds: number;
  /** Whether client_credentials, code flow (SSO) and refresh are also measured against their minimal reference servers. */
  ceilings: boolean;
  /** Connections for the cheap endpoints (discovery, JWKS, userinfo) and the bare node:http floor. */
  connections: number;
  /** Connections for client_credentials: enough to keep one core busy signing, without a long queue. */
  tokenConnections: number;
  /** Virtual users (one connection each) looping code flows with an SSO session, or refreshes. */
  flowUsers: number;
  /** Virtual users looping code flows through the login page. */
  loginUsers: number;
  /** Which scenarios to load; the floors they are compared with are measured too. */
  only: readonly ScenarioName[];
  /** Exit 1 when a target fails or a measurement is invalid. */
  check: boolean;
  /** The core the server side (provider, bare server, signer, hasher) is pinned to. */
  serverCpu: number;
  /** The core the load generators are pinned to. */
  loadCpu: number;
  /** Also measure node-oidc-provider (bench/peer/), configured like the demo, in the same rounds. */
  peer: boolean;
  /**
   * Also measure the provider on an LDAP directory (a slapd the bench starts) in the scenarios that look
   * people up, in the same rounds, and the directory's own cost (the `directory` scenario).
   */
  ldap: boolean;
  /**
   * When set (2 or more): client_credentials is also measured against a provider running one worker and
   * one running this many (listen.workers, on a Redis store), in alternating rounds: the ratio many ÷ one.
   */
  workers: number | undefined;
}

/**
 * Logins in flight per demo account must stay within its password attempt limit (5 in the demo config:
 * an attempt counts until it succeeds); virtual users alternate between the two demo accounts.
 */
const MAX_LOGIN_USERS = 10;

/**
 * The warm-up of every round after a server's first: new load-generator connections and a cache the floor
 * sample has just walked over, not JIT (see docs/performance.md, "What it does").
 */
export const LATER_ROUND_WARMUP_SECONDS = 1;

export const USAGE = `usage: npm run bench -- [options]

  --rounds N              rounds per scenario; the reported ratio is the median of the rounds' (env BENCH_ROUNDS, default 3)
  --duration S            seconds recorded per load window (env BENCH_DURATION, default 3)
  --warmup S              seconds of unrecorded load before a server's first window of a scenario (env BENCH_WARMUP,
                          default 2); later rounds warm up for at most ${LATER_ROUND_WARMUP_SECONDS} s
  --ceilings, --no-ceilings
                          also measure minimal node:http reference servers for client_credentials, code_flow_sso and refresh
                          (env BENCH_CEILINGS=0 to turn off; default on)
  --connections N         connections for discovery, JWKS, userinfo and the node:http floor (env BENCH_CONNECTIONS, default 32)
  --token-connections N   connections for the client_credentials scenarios (env BENCH_TOKEN_CONNECTIONS, default 4)
  --flow-users N          virtual users for code_flow_sso and the refresh scenarios, one connection each (env BENCH_FLOW_USERS, default 4)
  --login-users N         virtual users for code_flow_login, at most ${MAX_LOGIN_USERS} (env BENCH_LOGIN_USERS, default 2)
  --only NAME[,NAME]      load only these: ${SCENARIO_NAMES.join(", ")} (env BENCH_ONLY)
  --check                 exit 1 when a target fails or a measurement is invalid (env BENCH_CHECK=1)
  --server-cpu N          core for the server side (env BENCH_SERVER_CPU, default 0)
  --load-cpu N            core for the load generators (env BENCH_LOAD_CPU, default 1)
  --peer                  also measure node-oidc-provider configured like the demo, in the same rounds (env BENCH_PEER=1)
  --ldap, --no-ldap       also measure the provider on an LDAP directory (a slapd it starts; needs slapd) in code_flow_sso,
                          refresh and code_flow_login, and the directory's own cost (directory) (env BENCH_LDAP=0 to turn
                          off; default on)
  --workers N             also measure client_credentials with 1 and with N worker processes (listen.workers, on a
                          Redis store; needs redis-server) and report the ratio N ÷ 1 (env BENCH_WORKERS)
  -h, --help              this text
`;

export class UsageError extends Error {}

/**
 * A command's options from `parse`, or the exit code to end with: 0 after printing `usage` for --help,
 * 2 after printing the mistake and `usage` for bad options. Other errors are the command's own.
 */
export function optionsOrExitCode<T>(parse: () => T | "help", usage: string): { options: T } | { exitCode: number } {
  let parsed: T | "help";
  try {
    parsed = parse();
  } catch (error) {
    if (!(error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))) throw error;
    process.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return { exitCode: 2 };
  }
  if (parsed === "help") {
    process.stdout.write(usage);
    return { exitCode: 0 };
  }
  return { options: parsed };
}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      rounds: { type: "string" },
      ceilings: { type: "boolean" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      "token-connections": { type: "string" },
      "flow-users": { type: "string" },
      "login-users": { type: "string" },
      only: { type: "string", multiple: true },
      check: { type: "boolean" },
      "server-cpu": { type: "string" },
      "load-cpu": { type: "string" },
      peer: { type: "boolean" },
      ldap: { type: "boolean" },
      workers: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  const ldap = values.ldap ?? env.BENCH_LDAP !== "0";

  const options: BenchOptions = {
    durationSeconds: number("--duration", values.duration ?? env.BENCH_DURATION, 3, 1),
    warmupSeconds: number("--warmup", values.warmup ?? env.BENCH_WARMUP, 2, 0),
    rounds: integer("--rounds", values.rounds ?? env.BENCH_ROUNDS, 3, 1),
    ceilings: values.ceilings ?? env.BENCH_CEILINGS !== "0",
    connections: integer("--connections", values.connections ?? env.BENCH_CONNECTIONS, 32, 1),
    tokenConnections: integer("--token-connections", values["token-connections"] ?? env.BENCH_TOKEN_CONNECTIONS, 4, 1),
    flowUsers: integer("--flow-users", values["flow-users"] ?? env.BENCH_FLOW_USERS, 4, 1),
    loginUsers: integer("--login-users", values["login-users"] ?? env.BENCH_LOGIN_USERS, 2, 1),
    only: scenarioList(values.only ?? (env.BENCH_ONLY ? [env.BENCH_ONLY] : []), ldap),
    check: values.check ?? env.BENCH_CHECK === "1",
    serverCpu: integer("--server-cpu", values["server-cpu"] ?? env.BENCH_SERVER_CPU, 0, 0),
    loadCpu: integer("--load-cpu", values["load-cpu"] ?? env.BENCH_LOAD_CPU, 1, 0),
    peer: values.peer ?? env.BENCH_PEER === "1",
    ldap,
    workers: (values.workers ?? env.BENCH_WORKERS) ? integer("--workers", values.workers ?? env.BENCH_WORKERS, 2, 2) : undefined,
  };
  if (options.loginUsers > MAX_LOGIN_USERS) {
    throw new UsageError(
      `--login-users must be at most ${MAX_LOGIN_USERS}: more logins in flight per demo account than its password attempt limit would be refused`,
    );
  }
  if (options.serverCpu === options.loadCpu) throw new UsageError("--server-cpu and --load-cpu must be different cores");
  return options;
}

export function number(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min) throw new UsageError(`${name} must be a number ≥ ${min}, got "${text}"`);
  return value;
}

export function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  const value = number(name, text, fallback, min);
  if (!Number.isInteger(value)) throw new UsageError(`${name} must be a whole number, got "${text}"`);
  return value;
}

/** The scenarios named, or all; the directory's own cost only with the LDAP directory (--ldap). */
function scenarioList(items: readonly string[], ldap: boolean): ScenarioName[] {
  const names = items
    .flatMap((item) => item.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (names.length === 0) return SCENARIO_NAMES.filter((name) => ldap || name !== "directory");
  for (const name of names) {
    if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`--only: unknown measurement "${name}" (known: ${SCENARIO_NAMES.join(", ")})`);
    }
  }
  if (!ldap && names.includes("directory")) throw new UsageError("--only directory measures the LDAP directory: it needs --ldap");
  // Keep the canonical order, whatever order they were given in.
  return SCENARIO_NAMES.filter((n) => names.includes(n));
}
