import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { labelValues, parsePrometheusText, total, type Sample } from "../support/prometheus-text.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { serviceUrl } from "../support/require-service.ts";
import { keepAliveLoad } from "../support/keep-alive-load.ts";
import { freePort } from "../support/services.ts";
import { eventually, spawnStart, type StartedProcess } from "../support/start-process.ts";
import { basic, copyConfig, postForm } from "../support/test-provider.ts";

/**
 * `portcullis start` with listen.workers: 2 on one Redis, as an operator runs it: a primary process and
 * two workers sharing the port, real signals, and the primary's /metrics gathering both workers.
 */
const redisUrl = serviceUrl("redis");
const service = { authorization: basic("demo-service", "demo-service-secret") };

/** A browser that opens a new connection for every request, so node:cluster hands them to the workers in turn. */
class NewConnectionBrowser extends RawBrowser {
  override get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    return super.get(url, { ...headers, connection: "close" });
  }
  override post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return super.post(url, form, { ...headers, connection: "close" });
  }
}

describe.skipIf(!redisUrl)("portcullis start with two workers on Redis", () => {
  let started: StartedProcess;
  let configDir: string;
  let dataDir: string;
  let url: string;
  let metricsUrl: string;

  beforeAll(async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    // A first start: data_dir does not exist yet (the primary writes its pid file there before any worker runs).
    dataDir = join(mkdtempSync(join(tmpdir(), "portcullis-data-")), "var");
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    configDir = copyConfig({
      "provider.yaml": {
        issuer: `http://127.0.0.1:${port}`,
        "listen.port": port,
        "listen.workers": 2,
        data_dir: dataDir,
        "store.url": `${redisUrl}?prefix=cluster-${Date.now()}`,
        "secrets.encryption_key": "${file:encryption.key}",
        "metrics.listen": `127.0.0.1:${metricsPort}`,
      },
    });
    writeFileSync(join(configDir, "encryption.key"), "test-encryption-key-material-of-more-than-32-characters\n");
    started = await spawnStart(["--config", configDir, "--port", String(port)]);
    expect(started.url, started.stderr()).toBeDefined();
    url = started.url!;
  }, 90_000);
  afterAll(async () => {
    if (started && started.child.exitCode === null) started.child.kill("SIGKILL");
    rmSync(configDir, { recursive: true, force: true });
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  const scrape = async () => {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    return parsePrometheusText(await res.text());
  };
  const workersIn = (samples: Sample[]) => labelValues(samples, "nodejs_eventloop_lag_p99_seconds", "worker");
  const tokenRequest = () => postForm(`${url}/connect/token`, { grant_type: "client_credentials" }, { ...service, connection: "close" });
  /** The primary's lines in the JSON log on stdout (the workers write theirs there too). */
  const primaryLogLines = () =>
    started
      .stdout()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.role === "primary");
  /** The worker processes: the primary's children that run portcullis. */
  const workerPids = () =>
    execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(started.child.pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes("portcullis.js"))
      .map((line) => Number(line.trim().split(/\s+/)[0]));

  it("runs two worker processes under one primary, and both serve the port", async () => {
    await eventually(() => workerPids().length === 2, "two worker processes");
    let samples = await scrape();
    // The banner is the first worker's; the second may still be starting (the primary leaves it out until it listens).
    for (let i = 0; i < 600 && workersIn(samples).size < 2; i++) samples = await new Promise((r) => setTimeout(r, 100)).then(scrape);
    expect(workersIn(samples)).toEqual(new Set(["1", "2"]));
    for (let i = 0; i < 6; i++) expect((await tokenRequest()).status).toBe(200);
    samples = await scrape();
    const served = (worker: string) =>
      total(samples, "http_request_duration_seconds_count", { route: "/connect/token", status: "200", worker });
    expect(served("1")).toBeGreaterThan(0);
    expect(served("2")).toBeGreaterThan(0);
    expect(served("1") + served("2")).toBe(6);
  }, 120_000);

  it("completes a login whose requests the two workers share", async () => {
    const before = await scrape();
    const answer = await loginWithPassword(new NewConnectionBrowser(), authorizeUrl(`${url}`));
    const code = responseParams(answer).get("code");
    expect(code).toBeTruthy();
    const redeemed = await postForm(
      `${url}/connect/token`,
      { grant_type: "authorization_code", code: code!, redirect_uri: "http://localhost:3001/callback" },
      {
        authorization: basic("demo-web", "demo-web-secret"),
        connection: "close",
      },
    );
    expect(redeemed.status, redeemed.text).toBe(200);
    const after = await scrape();
    const loginRequests = (samples: Sample[], worker: string) =>
      ["/connect/authorize", "/interaction/*"].reduce(
        (sum, route) => sum + total(samples, "http_request_duration_seconds_count", { route, worker }),
        0,
      );
    for (const worker of ["1", "2"])
      expect(loginRequests(after, worker) - loginRequests(before, worker), `worker ${worker} served part of the login`).toBeGreaterThan(0);
  }, 60_000);

  it("replaces a worker that crashes", async () => {
    const [victim] = workerPids();
    process.kill(victim!, "SIGKILL");
    await eventually(
      () => started.stderr().includes(`(pid ${victim}) exited (SIGKILL); starting a replacement`),
      "the primary noticing the crash",
    );
    // The same event in the JSON log, for whoever watches that rather than stderr (another pipe: it may come a moment later).
    const crashLine = () => primaryLogLines().find((line) => line.msg === "worker exited unasked");
    await eventually(() => crashLine() !== undefined, "the primary's JSON line for the crash");
    const crash = crashLine();
    expect(crash).toMatchObject({
      level: 40,
      role: "primary",
      pid: started.child.pid,
      worker_pid: victim,
      signal: "SIGKILL",
      exit_code: null,
      service: "portcullis",
    });
    expect(crash!.restart_in_ms).toBeGreaterThan(0);
    await eventually(() => workerPids().length === 2 && !workerPids().includes(victim!), "a replacement worker", 60_000);
    let samples = await scrape();
    for (let i = 0; i < 600 && !workersIn(samples).has("3"); i++) samples = await new Promise((r) => setTimeout(r, 100)).then(scrape);
    expect(workersIn(samples)).toContain("3");
    expect(total(samples, "portcullis_worker_restarts_total")).toBe(1);
    for (let i = 0; i < 4; i++) expect((await tokenRequest()).status).toBe(200);
  }, 120_000);

  it("on SIGTERM finishes a request in flight and answers every request of keep-alive clients, then every process exits and the primary exits 0", async () => {
    // Keep-alive clients in a loop, on connections both workers serve: none may see a reset (test/cli/start-shutdown.test.ts).
    const load = keepAliveLoad(url, 20);
    await eventually(
      () => load.clients.every((client) => client.answers.length >= 3),
      "every keep-alive client to be answered three times",
    );
    const { port } = new URL(url);
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk));
    await new Promise((resolve) => socket.once("connect", resolve));
    const body = "grant_type=client_credentials";
    const head = (length: number) =>
      `POST /connect/token HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${service.authorization}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`;
    // A first request on the connection binds it to a worker and shows it is served.
    socket.write(head(body.length) + body);
    await eventually(() => /\r\n\r\n\{.*\}$/s.test(received), "the first answer");
    received = "";
    // The second request: headers and half its body, the rest after the shutdown has begun.
    socket.write(head(body.length) + body.slice(0, 10));
    const pids = workerPids();
    // Time for the worker to read those headers (the connection is already its own): from then on the request is in flight.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    started.child.kill("SIGTERM");
    await eventually(() => (started.stderr().match(/SIGTERM received, shutting down/g) ?? []).length === 2, "both workers shutting down");
    // Every keep-alive client ends refused: the workers answered its last request with Connection: close,
    // which they do only once neither accepts connections any more (src/cluster/drain-together.ts).
    await load.done;
    load.destroy();
    expect(load.clients.flatMap((client) => client.errors)).toEqual([]);
    for (const { answers } of load.clients) {
      expect(answers.every((answer) => answer.status === 200 && answer.complete)).toBe(true);
      expect(answers.at(-1)!.connection).toBe("close");
    }
    socket.write(body.slice(10));
    await eventually(() => /\r\n\r\n\{.*\}$/s.test(received), "the answer to the request in flight");
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.toLowerCase()).toContain("connection: close");
    expect(received).toContain('"access_token"');
    socket.destroy();
    expect(await started.exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0), `worker ${pid} has exited`).toThrow();
    expect(primaryLogLines().map((line) => line.msg)).toEqual([
      "primary starting workers",
      "worker exited unasked",
      "primary stopping the workers",
      "primary stopped: every worker has exited",
    ]);
    expect(primaryLogLines()[2]).toMatchObject({ signal: "SIGTERM" });
  }, 90_000);
});

describe("portcullis start with two workers on the embedded store", () => {
  it("refuses to start and says why", async () => {
    const configDir = copyConfig({ "provider.yaml": { "listen.workers": 2 } });
    try {
      const started = await spawnStart(["--config", configDir, "--port", "0"]);
      expect(await started.exited).toBe(1);
      expect(started.url).toBeUndefined();
      expect(started.stderr()).toContain("listen.workers");
      expect(started.stderr()).toContain("several workers need a shared store: the embedded store belongs to one process");
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  }, 90_000);
});
