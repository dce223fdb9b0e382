/**
 * The DPoP and private_key_jwt scenarios' clients (bench/bench-clients.ts) on the provider the bench starts
 * and on the peer: tokens with the proofs the load generators make, a refused replay (so a generator that
 * reused a proof would show as failures, not as a fast server), and the autocannon load generator making a
 * fresh proof for every request of a window.
 */
import { spawn } from "node:child_process";
import { calculateJwkThumbprint, decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROOF_SERVICE, proofSpecOf, proofWebClient, providerClientEntries, publicJwkOf, tokenUrlOf } from "../../bench/bench-clients.ts";
import { Browser, httpSender, logInAndRedeem, oneConnection, pkcePair } from "../../bench/code-flow.ts";
import { proofMaker, type ProofKind } from "../../bench/client-proofs.ts";
import { DEMO_USERS, DEMO_WEB } from "../../bench/demo-accounts.ts";
import type { LoadJob, LoadRequest, LoadResult } from "../../bench/load-protocol.ts";
import { startProvider } from "../../bench/provider-process.ts";
import { firstRefreshToken, refreshGrant } from "../../bench/refresh-flow.ts";
import { SCENARIOS } from "../../bench/scenarios.ts";
import { startPeer } from "../../bench/servers.ts";
import { firstJsonLine, PROJECT_ROOT, type RunningServer } from "../../bench/workers.ts";

const servers: Record<"provider" | "peer", RunningServer | undefined> = { provider: undefined, peer: undefined };

beforeAll(async () => {
  [servers.provider, servers.peer] = await Promise.all([
    startProvider(0, process.env, undefined, {}, {}, providerClientEntries()),
    startPeer(0),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([servers.provider?.stop(), servers.peer?.stop()]);
});

/** The scenario's request as prepared for `server`, with one set of proofs made for it. */
async function serviceRequest(kind: ProofKind, server: "provider" | "peer"): Promise<{ request: LoadRequest; init: RequestInit }> {
  const { baseUrl } = servers[server]!;
  const scenario = SCENARIOS[kind === "dpop" ? "client_credentials_dpop" : "client_credentials_pkjwt"];
  if (scenario.kind !== "request") throw new Error("not a request scenario");
  const request = await scenario.prepare(baseUrl, tokenUrlOf(server, baseUrl));
  const { headers, form } = proofMaker(request.proofs!)();
  const body = [request.body, new URLSearchParams(form).toString()].filter((p) => p !== "").join("&");
  return { request, init: { method: "POST", headers: { ...request.headers, ...headers }, body } };
}

const tokenUrl = (server: "provider" | "peer") => new URL("/connect/token", servers[server]!.baseUrl);

describe.each(["provider", "peer"] as const)("the proof scenarios' clients on the %s", (server) => {
  it("get a DPoP-bound access token with a proof, bound to the proof's key; the same proof again is refused", async () => {
    const { init } = await serviceRequest("dpop", server);
    const first = await fetch(tokenUrl(server), init);
    const answer = (await first.json()) as { access_token: string; token_type: string };
    expect(first.status).toBe(200);
    expect(answer.token_type.toLowerCase()).toBe("dpop");
    const jkt = await calculateJwkThumbprint(publicJwkOf(PROOF_SERVICE.dpop));
    expect(decodeJwt(answer.access_token).cnf).toEqual({ jkt });
    const replay = await fetch(tokenUrl(server), init);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toMatch(/invalid_dpop_proof|invalid_grant/);
  });

  it("get no token without the proof: the DPoP client requires one", async () => {
    const { request } = await serviceRequest("dpop", server);
    const response = await fetch(tokenUrl(server), { method: "POST", headers: request.headers!, body: request.body! });
    expect(response.status).toBe(400);
  });

  it("authenticate with a client assertion instead of a secret; the same assertion again is refused", async () => {
    const { init } = await serviceRequest("private_key_jwt", server);
    const first = await fetch(tokenUrl(server), init);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { token_type: string }).token_type.toLowerCase()).toBe("bearer");
    const replay = await fetch(tokenUrl(server), init);
    expect([400, 401]).toContain(replay.status);
    expect(((await replay.json()) as { error: string }).error).toBe("invalid_client");
  });

  it.each(["dpop", "private_key_jwt"] as const)(
    "refresh as the %s web client, each token request with its own proofs",
    async (kind) => {
      const { baseUrl } = servers[server]!;
      const agent = oneConnection();
      try {
        const send = httpSender(baseUrl, agent);
        const { browser } = await logInAndRedeem(send, DEMO_USERS[0], DEMO_WEB.scope);
        const client = proofWebClient(kind, tokenUrlOf(server, baseUrl));
        const token = await firstRefreshToken(new Browser(send, browser.jar), send, "test", pkcePair(), client);
        const first = await refreshGrant(send, token, client);
        const second = await refreshGrant(send, first.refresh_token, client);
        expect(String(second.token_type).toLowerCase()).toBe(kind === "dpop" ? "dpop" : "bearer");
        expect(decodeJwt(second.access_token).client_id).toBe(client.clientId);
      } finally {
        agent.destroy();
      }
    },
    30_000,
  );
});

describe("the load generator with proofs", () => {
  it("makes a fresh DPoP proof for every request of a window: not one is refused as a replay", async () => {
    const provider = servers.provider!;
    const request = { ...(await serviceRequest("dpop", "provider")).request };
    expect(request.proofs).toEqual(proofSpecOf(PROOF_SERVICE.dpop, tokenUrlOf("provider", provider.baseUrl)));
    const job: LoadJob = {
      url: new URL(request.path, provider.baseUrl).href,
      request,
      connections: 2,
      warmupSeconds: 0,
      durationSeconds: 1,
      serverPid: provider.pid,
      serverCpu: 0,
    };
    // Not the bench's spawnTracked: that installs the bench's signal handlers, which are not the test runner's.
    const generator = spawn(process.execPath, ["bench/workers/load-generator.ts", JSON.stringify(job)], {
      cwd: PROJECT_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const result = await firstJsonLine<LoadResult>(generator, "load generator");
    expect(result.ok).toBeGreaterThan(1);
    expect({ non2xx: result.non2xx, errors: result.errors, statusCodes: result.statusCodes }).toEqual({
      non2xx: 0,
      errors: 0,
      statusCodes: { "200": result.ok },
    });
  }, 60_000);
});
