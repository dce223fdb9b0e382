import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import {
  Browser,
  FlowError,
  RequestTimeout,
  httpSender,
  logInAndRedeem,
  oneConnection,
  pkcePair,
  ssoCodeFlow,
  ssoSession,
  type Send,
} from "../code-flow.ts";
import { proofWebClient } from "../bench-clients.ts";
import { DEMO_USERS, DEMO_WEB } from "../demo-accounts.ts";
import type { FlowJob, LoadResult } from "../load-protocol.ts";
import { firstRefreshToken, refreshGrant, REFRESHING_CLIENT } from "../refresh-flow.ts";
import { startTimeline } from "../timeline.ts";
import { Latencies, openWindow } from "../window.ts";

/**
 * The code-flow load generator, run pinned to its own core. autocannon repeats one request; a flow is
 * a chain of requests where each depends on the last (the code from authorize goes to token), so this
 * worker runs `users` virtual users, each looping whole flows on its own keep-alive connection:
 * - sso: each user logs in once through the login page (the ceiling: its bench-only session endpoint;
 *   not measured), then loops authorize (with its SSO session cookie) → token.
 * - login: each flow is a fresh browser (no cookies) on the user's connection: authorize → login page
 *   → password → token.
 * - refresh: each user gets a session as for sso and one refresh token from a code flow with
 *   offline_access (not measured), then loops refresh grants, each with the token the last one returned;
 *   as demo-web (JWT access tokens) or, for job.accessTokens "reference", as demo-portal; with job.proof,
 *   as the bench's DPoP or private_key_jwt client, each token request with a proof or assertion made for it.
 * The load runs without a break from the warm-up into the recorded window; a flow counts when it
 * completes inside the window. argv[2]: a FlowJob as JSON. Prints one LoadResult (unit "flow") as JSON.
 */
const job = JSON.parse(process.argv[2] ?? "") as FlowJob;
/** After a failed flow, before the next: a dead server must not turn the loop into a busy spin. */
const FAILURE_PAUSE_MS = 10;
/** refresh: the client whose grants are loaded. */
const refreshingClient = job.proof ? proofWebClient(job.proof.kind, job.proof.tokenUrl) : REFRESHING_CLIENT[job.accessTokens ?? "jwt"];

type Phase = "setup" | "warmup" | "window" | "drain";
let phase: Phase = "setup";

const flowLatencies = new Latencies();
const stepLatencies = new Map<string, Latencies>();
const statusCodes: Record<string, number> = {};
const counts = { ok: 0, unexpected: 0, errors: 0, timeouts: 0, warmupFailures: 0 };

interface VirtualUser {
  index: number;
  send: Send;
  /** sso, refresh: the browser holding this user's SSO session. */
  browser: Browser | undefined;
  /** refresh: the token the next refresh presents; undefined after a failure (a new family is started). */
  refreshToken: string | undefined;
  /** Its current flow's requests, timed; kept only if the flow completes inside the window. */
  timings: Array<[string, number]>;
  close(): void;
}

/** One virtual user: its connection, and for sso its session (not measured). */
async function prepare(index: number): Promise<VirtualUser> {
  const agent = oneConnection();
  const http = httpSender(job.baseUrl, agent);
  const user: VirtualUser = { index, send: http, browser: undefined, refreshToken: undefined, timings: [], close: () => agent.destroy() };
  user.send = async (step, method, path, headers, body) => {
    const started = performance.now();
    const res = await http(step, method, path, headers, body);
    user.timings.push([step, performance.now() - started]);
    if (phase === "window") statusCodes[`${step} ${res.status}`] = (statusCodes[`${step} ${res.status}`] ?? 0) + 1;
    return res;
  };
  if (job.flow !== "login") user.browser = new Browser(user.send, await ssoSession(http, demoUser(index), job.sessionFrom, DEMO_WEB.scope));
  if (job.flow === "refresh")
    user.refreshToken = await firstRefreshToken(new Browser(http, user.browser!.jar), http, `${index}.setup`, pkcePair(), refreshingClient);
  return user;
}

/** Whole flows, one after the other, until the window has closed. */
async function loop(user: VirtualUser): Promise<void> {
  const pkce = pkcePair();
  for (let n = 0; phase !== "drain"; n++) {
    user.timings = [];
    const started = performance.now();
    try {
      if (job.flow === "refresh") {
        // A failed refresh may have used its token up or revoked its family: the next flow starts a new one.
        const token =
          user.refreshToken ?? (await firstRefreshToken(user.browser!, user.send, `${user.index}.${n}`, pkce, refreshingClient));
        user.refreshToken = undefined;
        user.refreshToken = (await refreshGrant(user.send, token, refreshingClient)).refresh_token;
      } else if (user.browser) {
        await ssoCodeFlow(user.browser, user.send, `${user.index}.${n}`, pkce);
      } else {
        await logInAndRedeem(user.send, demoUser(user.index), DEMO_WEB.scope);
      }
      const ms = performance.now() - started;
      if (phase === "window") {
        counts.ok++;
        flowLatencies.add(ms);
        for (const [step, stepMs] of user.timings) stepLatenciesOf(step).add(stepMs);
      }
    } catch (error) {
      countFailure(error);
      await sleep(FAILURE_PAUSE_MS);
    }
  }
}

function demoUser(index: number) {
  return DEMO_USERS[index % DEMO_USERS.length]!;
}

function countFailure(error: unknown): void {
  if (phase === "warmup") counts.warmupFailures++;
  if (phase !== "window") return;
  if (error instanceof FlowError) counts.unexpected++;
  else if (error instanceof RequestTimeout) counts.timeouts++;
  else counts.errors++;
  // The first few, so an invalid run says why.
  if (counts.unexpected + counts.errors + counts.timeouts <= 3) process.stderr.write(`flow failed: ${(error as Error).message}\n`);
}

function stepLatenciesOf(step: string): Latencies {
  const known = stepLatencies.get(step);
  if (known) return known;
  const latencies = new Latencies();
  stepLatencies.set(step, latencies);
  return latencies;
}

// Every virtual user must be ready (sso: logged in) before the load starts; a failed login ends the worker.
// One login per demo account at a time: logins in flight count against the account's attempt limit.
const virtualUsers: VirtualUser[] = [];
for (let first = 0; first < job.users; first += DEMO_USERS.length) {
  const batch = Array.from({ length: Math.min(DEMO_USERS.length, job.users - first) }, (_, i) => prepare(first + i));
  virtualUsers.push(...(await Promise.all(batch)));
}
phase = "warmup";
const loops = virtualUsers.map(loop);
await sleep(job.warmupSeconds * 1000);
phase = "window";
const recorded = openWindow(job.serverPid, job.serverCpu);
const timeline = startTimeline(job.serverPid, () => counts.ok, job.sliceSeconds);
await sleep(job.durationSeconds * 1000);
const slices = timeline.stop();
const { wallSeconds, ...cpu } = recorded.close(counts.ok);
phase = "drain";
await Promise.all(loops);
for (const user of virtualUsers) user.close();

const output: LoadResult = {
  unit: "flow",
  connections: job.users,
  seconds: wallSeconds,
  ok: counts.ok,
  reqPerSec: counts.ok / wallSeconds,
  latencyMs: flowLatencies.summary(),
  non2xx: counts.unexpected,
  errors: counts.errors,
  timeouts: counts.timeouts,
  warmupFailures: counts.warmupFailures,
  statusCodes,
  ...(slices.length >= 2 && { timeline: slices }),
  steps: Object.fromEntries([...stepLatencies].map(([step, latencies]) => [step, latencies.summary()])),
  ...cpu,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
