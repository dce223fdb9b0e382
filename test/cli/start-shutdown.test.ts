import { Agent, request, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/services.ts";
import { eventually, spawnStart } from "../support/start-process.ts";
import { copyConfig } from "../support/test-provider.ts";

/**
 * SIGTERM with keep-alive clients: nobody is left guessing whether a token was issued. A request in
 * flight completes, with `Connection: close`; an idle kept-alive connection is closed at once (before
 * the client sends anything on it); no connection goes back to idle to be reused; the process exits 0.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const FORM = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";

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
  it("finishes the request in flight with Connection: close, closes idle connections at once, and exits 0", async () => {
    const data = mkdtempSync(join(tmpdir(), "portcullis-shutdown-"));
    const configDir = copyConfig({ "provider.yaml": { data_dir: data } });
    dirs.push(data, configDir);
    const started = await spawnStart(["--config", configDir, "--port", String(await freePort())]);
    const agent = new Agent({ keepAlive: true });
    try {
      expect(started.url, started.stderr()).toBeDefined();
      const { hostname, port } = new URL(started.url!);
      const target = { agent, hostname, port: Number(port) };

      // In flight: the provider has read the headers (it sent 100 Continue) but not the body yet.
      const inFlight = request({ ...target, method: "POST", path: "/connect/token", headers: {
        "content-type": "application/x-www-form-urlencoded", "content-length": String(FORM.length), expect: "100-continue" } });
      const inFlightAnswer = answerOf(inFlight);
      await new Promise((resolve) => inFlight.once("continue", resolve));

      // Idle: a second kept-alive connection that has served one request and waits in the agent's pool.
      let idleSocket: Socket | undefined;
      const warm = request({ ...target, path: "/.well-known/openid-configuration" });
      warm.once("socket", (s) => (idleSocket = s));
      warm.end();
      const warmAnswer = await answerOf(warm);
      expect(warmAnswer.res.statusCode).toBe(200);
      expect(warmAnswer.res.headers.connection).toBe("keep-alive");
      await eventually(() => (agent.freeSockets[Object.keys(agent.freeSockets)[0] ?? ""]?.length ?? 0) === 1, "the warm connection to be pooled");

      started.child.kill("SIGTERM");
      await eventually(() => started.stderr().includes("SIGTERM received, shutting down"), "the provider to notice SIGTERM");

      // The idle connection is closed by the provider (at once; the client sees it before sending anything on it).
      await eventually(() => idleSocket!.destroyed, "the idle connection to be closed");
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
