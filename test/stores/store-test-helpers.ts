import { createServer, type Socket } from "node:net";
import { pino } from "pino";
import { expect } from "vitest";
import type { Store } from "../../src/stores/store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";

/** A pino logger whose lines are kept for inspection. */
export function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** A TCP server on loopback that accepts connections and never answers: a stuck backend. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    port: address.port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A store whose server is unreachable rejects every call quickly with StoreUnavailableError, and logs no key or value. */
export async function expectFailsFastWithoutLeaking(store: Store, lines: string[]): Promise<void> {
  const started = Date.now();
  await expect(store.namespace("codes").set("secret-key", "secret-value", 1000)).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(store.namespace("codes").take("secret-key")).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(Date.now() - started).toBeLessThan(2500);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.join("\n")).not.toMatch(/secret-(key|value)/);
}
