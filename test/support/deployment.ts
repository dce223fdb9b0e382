/**
 * Several provider processes of one deployment on one network store, with no node in the test process:
 * the issuer is an address no node serves (as a load balancer's would be), and every request goes to a
 * node of the test's choosing. Plus what the store-outage tests do with them: a login whose requests hop
 * across the nodes, refresh-token chains, readiness and light load.
 */
import { expect } from "vitest";
import { authorizeUrl } from "./browser-login.ts";
import { onNode, startSiblingProcess, type ProviderProcess } from "./provider-process.ts";
import { formAction, hiddenField, RawBrowser, type Answer } from "./raw-browser.ts";
import { postForm, send, startTestProvider } from "./test-provider.ts";
import { WEB, WEB_REDIRECT } from "./code-grant.ts";

export interface Deployment {
  issuer: string;
  nodes: ProviderProcess[];
  stop(): Promise<void>;
}

/** `count` nodes on `storeUrl`; the in-process provider that wrote the shared config (and the keys) is closed again. */
export async function startDeployment(storeUrl: string, count: number): Promise<Deployment> {
  const template = await startTestProvider({ storeUrl });
  const started = await Promise.allSettled(Array.from({ length: count }, () => startSiblingProcess(template)));
  await template.close();
  const nodes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const stop = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    await stop();
    throw (failed as PromiseRejectedResult).reason;
  }
  return { issuer: template.issuer, nodes, stop };
}

/** Round-robin over the nodes: each call the next one. */
export function nodeCycle(nodes: ProviderProcess[]): () => ProviderProcess {
  let next = 0;
  return () => nodes[next++ % nodes.length]!;
}

/**
 * Signs alice in at demo-web (password, offline_access) with every request on the next node: authorize,
 * each redirect, the method choice and the password form. Returns the browser (signed in, for SSO) and
 * the origins that served the login.
 */
export async function hoppingLogin(nodes: ProviderProcess[]): Promise<{ browser: RawBrowser; code: string; origins: Set<string> }> {
  const next = nodeCycle(nodes);
  const browser = new RawBrowser();
  const origins = new Set<string>();
  const hop = async (send: (node: ProviderProcess) => Promise<Answer>) => {
    const node = next();
    origins.add(new URL(node.url).origin);
    return send(node);
  };
  let answer = await hop((node) => browser.get(authorizeUrl(node.url, { scope: "openid profile offline_access" })));
  // Redirects within the provider (to the login page) are followed on the next node.
  while (answer.location !== undefined && !answer.location.startsWith(WEB_REDIRECT))
    answer = await hop((node) => browser.get(onNode(answer.location!, node)));
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  let form = answer;
  if (!form.text.includes('name="password"')) {
    const page = form;
    form = await hop((node) =>
      browser.post(onNode(formAction(page.text, page.url), node), {
        csrf: hiddenField(page.text, "csrf") ?? "",
        event: "CHOOSE_METHOD",
        method: "password",
      }),
    );
    expect(form.status, form.text.slice(0, 300)).toBe(200);
  }
  const done = await hop((node) =>
    browser.post(onNode(formAction(form.text, form.url), node), {
      csrf: hiddenField(form.text, "csrf") ?? "",
      event: "SUBMIT_PASSWORD",
      username: "alice",
      password: "alice-password",
    }),
  );
  return { browser, code: codeOf(done), origins };
}

/** An SSO authorize of demo-web (offline_access) at `node` with a signed-in browser: the code. */
export async function ssoCode(browser: RawBrowser, node: ProviderProcess): Promise<string> {
  return codeOf(await browser.get(authorizeUrl(node.url, { scope: "openid profile offline_access" })));
}

function codeOf(answer: Answer): string {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  expect(answer.location?.startsWith(`${WEB_REDIRECT}?`), answer.location).toBe(true);
  const code = new URL(answer.location!).searchParams.get("code");
  expect(code, answer.location).toBeTruthy();
  return code!;
}

const web = { client_id: WEB.id, client_secret: WEB.secret };

/** Redeems demo-web's code at `node` (the token endpoint's answer). */
export function redeemAt(node: ProviderProcess, code: string) {
  return postForm(`${node.url}/connect/token`, { grant_type: "authorization_code", code, redirect_uri: WEB_REDIRECT, ...web });
}

/** Redeems demo-web's code at `node`: its refresh token. */
export async function redeemForRefreshToken(node: ProviderProcess, code: string): Promise<string> {
  const res = await redeemAt(node, code);
  expect(res.status, res.text).toBe(200);
  expect(res.json!.refresh_token).toEqual(expect.any(String));
  return res.json!.refresh_token as string;
}

/** A refresh-token grant of demo-web at `node`. */
export function refreshAt(node: ProviderProcess, refreshToken: string) {
  return postForm(`${node.url}/connect/token`, { grant_type: "refresh_token", refresh_token: refreshToken, ...web });
}

/** GET /readyz at `node`: its status and which checks fail. */
export async function readiness(node: ProviderProcess): Promise<{ status: number; store: unknown }> {
  const res = await send(`${node.url}/readyz`);
  return { status: res.status, store: (res.json?.checks as Record<string, unknown> | undefined)?.store };
}

/** Polls `check` every 100 ms until it holds; fails after `limitMs` (generous: never a measure of speed). */
export async function until(check: () => Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One answer of the light load, with the phase of the scenario when it was sent and when it came back. */
export interface LoadSample {
  step: string;
  sent: string;
  answered: string;
  status: number;
  /** The OAuth error, from a JSON body or a redirect's query. */
  error?: string;
}

export type LoadStep = (node: ProviderProcess) => Promise<{ status: number; error?: string }>;

/**
 * Light load: the steps in turn, each on the next node, one request at a time with a pause of `pauseMs`,
 * until stopped (or, as a bound, after `limitMs`). `phase()` labels the samples.
 */
export function startLoad(nodes: ProviderProcess[], steps: Record<string, LoadStep>, phase: () => string, pauseMs = 50, limitMs = 180_000) {
  const samples: LoadSample[] = [];
  const next = nodeCycle(nodes);
  const names = Object.keys(steps);
  let stopped = false;
  const deadline = Date.now() + limitMs;
  const running = (async () => {
    for (let i = 0; !stopped && Date.now() < deadline; i++) {
      const step = names[i % names.length]!;
      const sent = phase();
      const answer = await steps[step]!(next()).catch((error: unknown) => ({ status: 0, error: String(error) }));
      samples.push({ step, sent, answered: phase(), ...answer });
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    samples,
    async stop(): Promise<LoadSample[]> {
      stopped = true;
      await running;
      return samples;
    },
  };
}

/** The OAuth error of an answer: `error` in its JSON body, or in the query of its redirect to the client. */
export function oauthError(answer: { json?: Record<string, unknown>; location?: string; headers: Headers }): string | undefined {
  if (typeof answer.json?.error === "string") return answer.json.error;
  const location = answer.location ?? answer.headers.get("location") ?? undefined;
  return location ? (new URL(location).searchParams.get("error") ?? undefined) : undefined;
}

/**
 * The load steps every outage test runs: an SSO authorize of demo-web with a signed-in browser (a code,
 * or the outage as a redirect or error page) and the redemption of an unknown code (400, or 503).
 */
export function loginLoadSteps(browser: RawBrowser): Record<"authorize" | "code", LoadStep> {
  return {
    authorize: async (node) => {
      const answer = await browser.get(authorizeUrl(node.url, { state: "load" }));
      const shown = /\btemporarily_unavailable\b/.test(answer.text) ? "temporarily_unavailable" : undefined;
      return {
        status: answer.status,
        error:
          oauthError({ headers: answer.headers, ...(answer.location && { location: answer.location }) }) ??
          jsonErrorOf(answer.text) ??
          shown,
      };
    },
    code: async (node) => {
      const res = await redeemAt(node, "not-a-code");
      return { status: res.status, error: oauthError(res) };
    },
  };
}

function jsonErrorOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: string }).error;
  } catch {
    return undefined;
  }
}
