import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { BenchError } from "./bench-error.ts";
import { spawnTracked, stop } from "./child-processes.ts";
import { freePort } from "../src/demo/kit/local-processes.ts";

const STARTUP_TIMEOUT_MS = 10_000;

export interface RunningRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway redis-server on loopback without persistence, for the runs that need a shared store
 * (several workers). Unpinned: client_credentials does not touch the store once the keys are loaded.
 */
export async function startRedis(): Promise<RunningRedis> {
  const port = await freePort();
  const child = spawnTracked("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop(child);
      throw new BenchError(
        "--workers needs redis-server (a shared store for the workers): it did not start; install it (apt-get install redis-server)",
      );
    }
    await sleep(100);
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => stop(child) };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.write("PING\r\n");
      socket.once("data", (data) => {
        socket.destroy();
        resolve(data.toString().startsWith("+PONG"));
      });
    });
    socket.once("error", () => resolve(false));
  });
}
