import { createClient } from "@keyv/redis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl } from "../support/browser-login.ts";
import { WEB_REDIRECT } from "../support/code-grant.ts";
import {
  hoppingLogin,
  loginLoadSteps,
  nodeCycle,
  oauthError,
  readiness,
  redeemAt,
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
import { startRedis, startRedisSentinel, type RunningService } from "../support/services.ts";
import { Enrollments } from "../../src/enrollments/enrollments.ts";
import { createStore } from "../../src/stores/create-store.ts";

/**
 * Redis as operators run it for anything that matters: a primary, a replica and three sentinels on
 * loopback, and provider processes given the sentinels' URL. The primary is killed under light load;
 * the sentinels promote the replica and the nodes move to it without a restart. Nothing acknowledged as
 * durable before the kill is lost (durable writes wait for the replica: WAIT). Until a replica is back
 * (the old primary, restarted, rejoins as one) durable writes fail closed with 503.
 */
const available = serviceUrl("redis") !== undefined;
const PRIMARY = "portcullis-test";

describe.skipIf(!available)("provider nodes on Redis Sentinel, whose primary is killed under light load", () => {
  let primary: RunningService;
  let replica: RunningService;
  let sentinels: RunningService[] = [];
  let deployment: Deployment;
  let storeUrl: string;

  beforeAll(async () => {
    primary = (await startRedis())!;
    replica = (await startRedis({ replicaOf: primary.port }))!;
    const options = { primaryPort: primary.port, name: PRIMARY, downAfterMs: 1000, failoverTimeoutMs: 3000 };
    sentinels = await Promise.all([0, 1, 2].map(async () => (await startRedisSentinel(options))!));
    // Ready for a failover: the replica is in sync and every sentinel knows it and the two other sentinels.
    await until(async () => (await ask(replica.port, ["INFO", "replication"])).includes("master_link_status:up"), "the replica in sync");
    await until(
      async () => (await Promise.all(sentinels.map(knowsEverything))).every(Boolean),
      "the sentinels to know each other and the replica",
    );
    storeUrl = `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(",")}/${PRIMARY}?prefix=sentinel-${Date.now()}`;
    deployment = await startDeployment(storeUrl, 2);
  }, 180_000);
  afterAll(async () => {
    await deployment?.stop();
    await Promise.all([...sentinels, replica, primary].map((s) => s?.stop()));
  });

  it("serves on the new primary after the failover, without a restart, and loses nothing acknowledged before", async () => {
    const { nodes } = deployment;
    const next = nodeCycle(nodes);
    const { browser, code } = await hoppingLogin(nodes);
    const tokens = [await redeemForRefreshToken(next(), code)];
    for (let i = 0; i < 2; i++) tokens.push(await redeemForRefreshToken(next(), await ssoCode(browser, next())));
    // An enrollment written through the store API (as the account page or the CLI write them), acknowledged.
    const enrolledAt = await withStore((enrollments) => enrollments.put("totp", "E10001", { secret: "sealed-secret" }));

    let phase = "up";
    const load = startLoad(nodes, loadSteps(browser), () => phase);
    await until(async () => load.samples.length >= 6, "load before the kill");

    phase = "failover";
    primary.kill!();
    await until(async () => (await primaryPort()) === replica.port, "the sentinels to promote the replica");
    // Non-durable work resumes on the new primary (an SSO login: its code) while no replica acknowledges durable writes.
    await until(
      async () => (await browser.get(authorizeUrl(next().url))).location?.startsWith(`${WEB_REDIRECT}?code=`) === true,
      "logins on the new primary",
    );
    const closed = await redeemAt(next(), await ssoCode(browser, next()));
    expect(closed.status, closed.text).toBe(503); // a refresh token would be written with no replica to keep it: fail closed

    // The old primary comes back (as a supervisor restarts it) and the sentinels make it the new primary's replica.
    await primary.stop();
    primary = (await startRedis({ port: primary.port }))!;
    await until(
      async () => (await ask(primary.port, ["INFO", "replication"])).includes("master_link_status:up"),
      "the old primary to rejoin as a replica",
      90_000,
    );
    await until(async () => (await Promise.all(nodes.map(readiness))).every((r) => r.status === 200), "all nodes ready");
    phase = "recovered";
    await until(async () => load.samples.filter((s) => s.sent === "recovered").length >= 6, "load after the failover");
    const samples = await load.stop();

    // During the failover: answers or 503 temporarily_unavailable, never a 500, a hang or a dropped connection.
    for (const sample of samples) {
      expect(sample.status !== 500 && sample.status !== 0, JSON.stringify(sample)).toBe(true);
      if (sample.status === 503) expect(sample.error, JSON.stringify(sample)).toBe("temporarily_unavailable");
    }
    for (const sample of samples.filter((s) => s.sent === "recovered")) expect(sample.status, JSON.stringify(sample)).not.toBe(503);
    for (const node of nodes) expect(node.alive(), node.stderr()).toBe(true);

    // Durable writes resume once the rejoined replica acknowledges them (WAIT, 500 ms): on a busy machine
    // the first ones after its sync may still fail closed (503). Fresh codes probe it, so that the
    // tokens acknowledged before the kill are then presented once each, and must all refresh.
    let after: string | undefined;
    await until(async () => {
      const res = await redeemAt(next(), await ssoCode(browser, next()));
      if (res.status === 503) return false;
      expect(res.status, res.text).toBe(200);
      after = res.json!.refresh_token as string;
      return true;
    }, "durable writes on the new primary");
    for (const token of tokens) {
      const res = await refreshAt(next(), token);
      expect(res.status, res.text).toBe(200);
    }
    expect((await refreshAt(next(), after!)).status).toBe(200);
    expect(await withStore((enrollments) => enrollments.get("totp", "E10001"))).toEqual(enrolledAt);
  }, 300_000);

  /** Runs `use` on the deployment's store, opened as the provider opens it (a fresh connection each time). */
  async function withStore<R>(use: (enrollments: Enrollments) => Promise<R>): Promise<R> {
    const store = await createStore(storeUrl, { dataDir: "/nonexistent", logger: pino({ level: "silent" }) });
    try {
      return await use(new Enrollments(store, () => Date.now()));
    } finally {
      await store.close();
    }
  }

  async function primaryPort(): Promise<number | undefined> {
    const answer = await ask(sentinels[0]!.port, ["SENTINEL", "get-master-addr-by-name", PRIMARY]).catch(() => "");
    return answer === "" ? undefined : Number(answer.split(",")[1]);
  }

  async function knowsEverything(sentinel: RunningService): Promise<boolean> {
    const replicas = await ask(sentinel.port, ["SENTINEL", "replicas", PRIMARY]);
    const others = await ask(sentinel.port, ["SENTINEL", "sentinels", PRIMARY]);
    return replicas.includes(String(replica.port)) && sentinels.every((s) => s === sentinel || others.includes(String(s.port)));
  }
});

/** One command to the Redis (or sentinel) on a loopback port; its reply flattened to text. */
async function ask(port: number, command: string[]): Promise<string> {
  const client = createClient({ socket: { host: "127.0.0.1", port, reconnectStrategy: false } });
  client.on("error", () => {});
  try {
    await client.connect();
    return String(await client.sendCommand(command));
  } catch {
    return "";
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/** The load: an SSO authorize, a refresh with an unknown token and a code redemption with an unknown code. */
function loadSteps(browser: RawBrowser): Record<string, LoadStep> {
  return {
    ...loginLoadSteps(browser),
    refresh: async (node) => {
      const res = await refreshAt(node, "not-a-refresh-token");
      return { status: res.status, error: oauthError(res) };
    },
  };
}
