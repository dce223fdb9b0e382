import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hoppingLogin,
  loginLoadSteps,
  nodeCycle,
  oauthError,
  readiness,
  redeemForRefreshToken,
  refreshAt,
  ssoCode,
  startDeployment,
  startLoad,
  until,
  type Deployment,
  type LoadStep,
} from "../support/deployment.ts";
import type { RawBrowser } from "../support/raw-browser.ts";
import { serviceUrl } from "../support/require-service.ts";
import { startPostgres, startRedis, type PostgresService, type RunningService } from "../support/services.ts";

/**
 * Three provider processes of one deployment on one store: a login hops across all three, and a store
 * outage of 10 s under light load is only 503s (never a crash), reported by /readyz, and recovered from
 * by itself — with every refresh token issued before the outage still good after (Redis persists).
 * Each store is a server of the test's own: the suite's shared ones are never stopped.
 */
const redisAvailable = serviceUrl("redis") !== undefined;
const postgresAvailable = serviceUrl("postgres") !== undefined;
const OUTAGE_MS = 10_000;

/** A store server the scenario stops and starts again (same address, same data). */
interface Outage {
  stop(): Promise<void>;
  start(): Promise<void>;
}

describe.skipIf(!redisAvailable)("three provider processes on one Redis (persistence on) that stops for 10 s", () => {
  let redisDir: string;
  let redis: RunningService;
  let deployment: Deployment;

  beforeAll(async () => {
    // Its data in an append-only file (fsync on every write), kept across the restart.
    redisDir = mkdtempSync(join(tmpdir(), "portcullis-redis-aof-"));
    redis = (await startRedis({ persistentDir: redisDir }))!;
    deployment = await startDeployment(redis.url, 3);
  }, 180_000);
  afterAll(async () => {
    await deployment?.stop();
    await redis?.stop();
    if (redisDir) rmSync(redisDir, { recursive: true, force: true });
  });

  it("serves a login whose requests hop across all three nodes", async () => {
    const { origins, code } = await hoppingLogin(deployment.nodes);
    expect(origins.size).toBe(3);
    expect(await redeemForRefreshToken(deployment.nodes[2]!, code)).toEqual(expect.any(String));
  });

  it("answers only 503 while Redis is down, reports it in /readyz, recovers, and loses no refresh token", async () => {
    await outageUnderLoad(deployment, {
      stop: () => redis.stop(), // SIGTERM, as an operator stops it
      start: async () => {
        redis = (await startRedis({ port: redis.port, persistentDir: redisDir }))!;
      },
    });
  }, 240_000);
});

describe.skipIf(!postgresAvailable)("three provider processes on one PostgreSQL that stops for 10 s", () => {
  let postgres: PostgresService;
  let deployment: Deployment;

  beforeAll(async () => {
    postgres = (await startPostgres())!;
    deployment = await startDeployment(postgres.url, 3);
  }, 180_000);
  afterAll(async () => {
    await deployment?.stop();
    await postgres?.stop();
  });

  it("serves a login whose requests hop across all three nodes, and refreshes on each", async () => {
    const { origins, code } = await hoppingLogin(deployment.nodes);
    expect(origins.size).toBe(3);
    let token = await redeemForRefreshToken(deployment.nodes[0]!, code);
    for (const node of deployment.nodes) {
      const res = await refreshAt(node, token);
      expect(res.status, res.text).toBe(200);
      token = res.json!.refresh_token as string;
    }
  });

  it("answers only 503 while PostgreSQL is down, reports it in /readyz, recovers, and loses no refresh token", async () => {
    await outageUnderLoad(deployment, { stop: () => postgres.pause(), start: () => postgres.resume() });
  }, 240_000);
});

/**
 * The outage: refresh tokens acknowledged, light load on every node, the store stopped for OUTAGE_MS
 * and started again. Meanwhile only 503s (temporarily_unavailable, also on authorize redirects) and
 * /readyz failing its store check; after, every node ready and serving, all alive, and every refresh
 * token acknowledged before still refreshes.
 */
async function outageUnderLoad(deployment: Deployment, outage: Outage): Promise<void> {
  const { nodes } = deployment;
  const { browser, code } = await hoppingLogin(nodes);
  const next = nodeCycle(nodes);
  // Refresh tokens acknowledged (200) before the outage: the first and three more from SSO logins.
  const tokens = [await redeemForRefreshToken(next(), code)];
  for (let i = 0; i < 3; i++) tokens.push(await redeemForRefreshToken(next(), await ssoCode(browser, next())));

  let phase = "up";
  const load = startLoad(
    nodes,
    loadSteps(browser, tokens, () => phase),
    () => phase,
  );
  await until(async () => load.samples.length >= 6, "load before the outage");

  phase = "stopping";
  await outage.stop();
  phase = "down";
  const downSince = Date.now();
  for (const node of nodes) expect(await readiness(node)).toEqual({ status: 503, store: "unavailable" });
  while (Date.now() - downSince < OUTAGE_MS) await new Promise((r) => setTimeout(r, 200)); // the outage's length, not a wait for a condition
  for (const node of nodes) expect(await readiness(node)).toEqual({ status: 503, store: "unavailable" });

  phase = "starting";
  await outage.start();
  await until(
    async () => (await Promise.all(nodes.map(readiness))).every((r) => r.status === 200 && r.store === "ok"),
    "all nodes ready again",
  );
  phase = "recovered";
  await until(async () => load.samples.filter((s) => s.sent === "recovered").length >= 9, "load after the recovery");
  const samples = await load.stop();

  const down = samples.filter((s) => s.sent === "down" && s.answered === "down");
  expect(down.length).toBeGreaterThanOrEqual(9);
  for (const sample of down) {
    // A redirect back to the client says temporarily_unavailable; anything else is a 503.
    expect(sample.status === 503 || sample.status === 303, JSON.stringify(sample)).toBe(true);
    expect(sample.error, JSON.stringify(sample)).toBe("temporarily_unavailable");
  }
  expect(new Set(down.map((s) => s.step))).toEqual(new Set(["authorize", "refresh", "code"]));
  for (const sample of samples.filter((s) => s.sent === "recovered")) expect(sample.status, JSON.stringify(sample)).not.toBe(503);
  expect(samples.filter((s) => s.status === 500 || s.status === 0)).toEqual([]);

  for (const node of nodes) expect(node.alive(), node.stderr()).toBe(true);
  // Every refresh token acknowledged before (or rotated, acknowledged, by the load) still refreshes, on any node.
  for (const token of tokens) {
    const res = await refreshAt(next(), token);
    expect(res.status, res.text).toBe(200);
  }
}

/**
 * The load: an SSO authorize, a refresh and a code redemption, each on the next node. While Redis is
 * down the refreshes present the tokens acknowledged before (each answer must leave them unconsumed);
 * otherwise an unknown token, so that no rotation is cut in half by the stop itself.
 */
function loadSteps(browser: RawBrowser, tokens: string[], phase: () => string): Record<string, LoadStep> {
  let turn = 0;
  return {
    ...loginLoadSteps(browser),
    refresh: async (node) => {
      const index = turn++ % tokens.length;
      const res = await refreshAt(node, phase() === "down" ? tokens[index]! : "not-a-refresh-token");
      // A rotation that went through (Redis came back while it was in flight) hands over the successor.
      if (res.status === 200 && phase() !== "up") tokens[index] = res.json!.refresh_token as string;
      return { status: res.status, error: oauthError(res) };
    },
  };
}
