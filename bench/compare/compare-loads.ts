import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { BenchError } from "../bench-error.ts";
import { Browser, httpSender, oneConnection, pkcePair, ssoCodeFlow, ssoSession, type Send } from "../code-flow.ts";
import { DEMO_USERS, DEMO_WEB } from "../demo-accounts.ts";
import { sampleCpu } from "../process-cpu.ts";
import { DEMO_CLIENT_CREDENTIALS } from "../scenarios.ts";
import type { WindowFigures } from "./pair-stats.ts";

export const COMPARED_SCENARIOS = ["code_flow_sso", "client_credentials"] as const;
export type ComparedScenario = (typeof COMPARED_SCENARIOS)[number];

/** Unrecorded load at the start of every window: the loops' connections are busy before the count starts. */
const RAMP_MS = 200;

/** One provider under one kind of load; `window` loads it for `seconds` and reports what it took. */
export interface ComparedLoad {
  window(seconds: number): Promise<WindowFigures>;
}

/**
 * The load of a comparison, generated in this process (pinned to the load core): the same virtual users
 * (code_flow_sso: each with its own keep-alive connection and SSO session, logged in once through the
 * login page) or connections (client_credentials) as `npm run bench` uses. Loops run only inside a
 * window, so the provider that is not being measured sits idle.
 */
export async function prepareLoad(
  scenario: ComparedScenario,
  provider: { baseUrl: string; pid: number },
  loops: number,
): Promise<ComparedLoad> {
  const senders = Array.from({ length: loops }, () => httpSender(provider.baseUrl, oneConnection()));
  let operation: (send: Send, loop: number, n: number) => Promise<void>;
  if (scenario === "code_flow_sso") {
    const browsers: Browser[] = [];
    // One login per demo account at a time: logins in flight count against its password attempt limit.
    for (const [i, send] of senders.entries())
      browsers.push(new Browser(send, await ssoSession(send, DEMO_USERS[i % DEMO_USERS.length]!, "login-page", DEMO_WEB.scope)));
    const pkce = pkcePair();
    operation = async (send, loop, n) => {
      await ssoCodeFlow(browsers[loop]!, send, `${loop}.${n}`, pkce);
    };
  } else {
    operation = async (send) => {
      const res = await send(
        "token",
        "POST",
        "/connect/token",
        { "content-type": "application/x-www-form-urlencoded" },
        DEMO_CLIENT_CREDENTIALS,
      );
      if (res.status !== 200) throw new BenchError(`client_credentials: status ${res.status}: ${res.body.slice(0, 200)}`);
    };
  }
  return { window: (seconds) => loadWindow(senders, operation, provider.pid, seconds) };
}

async function loadWindow(
  senders: readonly Send[],
  operation: (send: Send, loop: number, n: number) => Promise<void>,
  pid: number,
  seconds: number,
): Promise<WindowFigures> {
  let running = true;
  let done = 0;
  const loops = senders.map(async (send, loop) => {
    for (let n = 0; running; n++) {
      await operation(send, loop, n);
      if (running) done++;
    }
  });
  const stopped = Promise.all(loops).finally(() => (running = false));
  // A failing loop ends the window at once, with its error.
  const failed = stopped.then(() => undefined);
  await Promise.race([sleep(RAMP_MS), failed]);
  const cpu0 = sampleCpu(pid).cpuSeconds;
  const done0 = done;
  const t0 = performance.now();
  await Promise.race([sleep(seconds * 1000), failed]);
  const cpu1 = sampleCpu(pid).cpuSeconds;
  const ops = done - done0;
  const wall = (performance.now() - t0) / 1000;
  running = false;
  await stopped;
  if (ops === 0) throw new BenchError("no operation completed in a window");
  return { rate: ops / wall, cpuUs: ((cpu1 - cpu0) * 1e6) / ops };
}
