import { Agent, request, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keepAliveLoad } from "../support/keep-alive-load.ts";
import { freePort } from "../support/services.ts";
import { eventually, spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

/**
 * SIGTERM with keep-alive clients: every request that reached the provider is answered, so nobody is
 * left guessing whether a token was issued. The provider stops accepting at once; for a drain period it
 * answers whatever arrives on an open connection (in flight, or on a connection idle at the SIGTERM)
 * with `Connection: close`, so each client's next request opens a new connection and is refused before
 * anything is sent; then the process exits 0.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const FORM = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";

async function startProcess() {
  const data = mkdtempSync(join(tmpdir(), "portcullis-shutdown-"));
  const configDir = copyConfig({ "provider.yaml": { data_dir: data } });
  dirs.push(data, configDir);
  const started = await spawnStart(["--config", configDir, "--port", String(await freePort())]);
  expect(started.url, started.stderr()).toBeDefined();
  return started;
}

function answerOf(req: ReturnType<typeof request>): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    req.once("error", reject);
    req.once("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.once("end", () => resolve({ res, body }));
    });
  });
}

describe("portcullis start stopping on SIGTERM with keep-alive clients", () => {
  it("answers every request of 20 keep-alive clients in a loop, the last on each connection with Connection: close; none is reset", async () => {
    const started = await startProcess();
    const load = keepAliveLoad(started.url!, 20);
    try {
      // Mid-load: every client has had answers, and sends its next request on the same connection.
      await eventually(() => load.clients.every((client) => client.answers.length >= 3), "every client to be answered three times");
      started.child.kill("SIGTERM");
      await load.done;

      // Each client stopped at a refused connection (nothing sent: safe to retry), never at a reset.
      expect(load.clients.flatMap((client) => client.errors)).toEqual([]);
      for (const { answers } of load.clients) {
        for (const answer of answers) {
          expect(answer).toMatchObject({ status: 200, complete: true });
          expect(JSON.parse(answer.body)).toMatchObject({ token_type: "Bearer", access_token: expect.any(String) });
        }
        // Its connection ended after a full answer that said so, not cut under a request.
        expect(answers.at(-1)!.connection).toBe("close");
        expect(answers.some((answer) => answer.reusedSocket)).toBe(true);
      }
      expect(await started.exited).toBe(0);
    } finally {
      load.destroy();
      started.child.kill("SIGKILL");
    }
  }, 120_000);

  it("finishes the request in flight, answers /readyz 503 on a connection idle at the SIGTERM, both with Connection: close, and exits 0", async () => {
    const started = await startProcess();
    const agent = new Agent({ keepAlive: true });
    try {
      const { hostname, port } = new URL(started.url!);
      const target = { agent, hostname, port: Number(port) };

      // In flight: the provider has read the headers (it sent 100 Continue) but not the body yet.
      const inFlight = request({
        ...target,
        method: "POST",
        path: "/connect/token",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(FORM.length),
          expect: "100-continue",
        },
      });
      const inFlightAnswer = answerOf(inFlight);
      await new Promise((resolve) => inFlight.once("continue", resolve));

      // Idle: a second kept-alive connection that has served one request and waits in the agent's pool.
      let idleSocket: Socket | undefined;
      const warm = request({ ...target, path: "/readyz" });
      warm.once("socket", (s) => (idleSocket = s));
      warm.end();
      const warmAnswer = await answerOf(warm);
      expect(warmAnswer.res.statusCode).toBe(200);
      expect(warmAnswer.res.headers.connection).toBe("keep-alive");
      await eventually(
        () => (agent.freeSockets[Object.keys(agent.freeSockets)[0] ?? ""]?.length ?? 0) === 1,
        "the warm connection to be pooled",
      );

      started.child.kill("SIGTERM");
      await eventually(() => started.stderr().includes("SIGTERM received, shutting down"), "the provider to notice SIGTERM");

      // The idle connection is still served (its client may have sent a request as the SIGTERM came),
      // within the drain period (2 s; this follows the SIGTERM within the 50 ms it takes to notice the line).
      const ready = request({ ...target, path: "/readyz" });
      ready.end();
      const readyAnswer = await answerOf(ready);
      expect(ready.reusedSocket).toBe(true);
      expect(readyAnswer.res.statusCode).toBe(503);
      expect(JSON.parse(readyAnswer.body)).toEqual({ status: "stopping" });
      expect(readyAnswer.res.headers.connection).toBe("close");
      await eventually(() => idleSocket!.destroyed, "the once idle connection to be closed after its answer");

      // A new request finds no pooled connection and no listener: refused before anything is sent.
      const late = request({ ...target, path: "/.well-known/openid-configuration" });
      late.end();
      await expect(answerOf(late)).rejects.toMatchObject({ code: "ECONNREFUSED" });

      // The request in flight completes, and its connection does not go back to idle for reuse.
      const inFlightSocket = inFlight.socket!;
      inFlight.end(FORM);
      const { res, body } = await inFlightAnswer;
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ token_type: "Bearer" });
      expect(res.headers.connection).toBe("close");
      await eventually(() => inFlightSocket.destroyed, "the in-flight connection to be closed after its response");

      expect(await started.exited).toBe(0);
    } finally {
      agent.destroy();
      started.child.kill("SIGKILL");
    }
  }, 120_000);
});
