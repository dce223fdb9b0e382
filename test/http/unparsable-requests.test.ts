/**
 * A request node:http's parser refuses gets its 4xx and an orderly close, even while the client is
 * still sending: never a reset that throws the answer away (src/http/answer-unparsable-request.ts).
 */
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { startTestProvider } from "../support/test-provider.ts";

const p = await startTestProvider();
afterAll(() => p.close());

interface RawOutcome {
  text: string;
  /** How the connection ended for the client: "end" (FIN) or the error code (ECONNRESET). */
  ending: string;
}

/**
 * Sends `head` and a body of `bodyBytes`, then reads only once the provider has let go of every
 * connection, so that whatever the provider did to the socket has happened before the client reads.
 */
async function sendThenRead(head: string, bodyBytes: number): Promise<RawOutcome> {
  const { port } = new URL(p.url);
  const socket: Socket = connect(Number(port), "127.0.0.1");
  socket.pause();
  socket.write(head);
  await new Promise<void>((resolve) => socket.end(Buffer.alloc(bodyBytes, 0x61), () => resolve()));
  await until(async () => (await connections()) === 0);
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  const ending = await new Promise<string>((resolve) => {
    socket.on("end", () => resolve("end"));
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.resume();
  });
  socket.destroy();
  return { text, ending };
}

function connections(): Promise<number> {
  return new Promise((resolve, reject) => p.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("the provider kept the connection");
}

describe("requests the HTTP parser refuses", () => {
  it("answers an oversized header section with 431 and a clean close while the body is still coming", async () => {
    const head = `GET /connect/authorize?${"a".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n`;
    const outcome = await sendThenRead(head, 1_000_000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 431 /);
    expect(outcome.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(outcome.ending).toBe("end");
  });

  it("answers a malformed request line with 400 and a clean close", async () => {
    const outcome = await sendThenRead("GET /x HTTP/1.1 extra\r\nHost: 127.0.0.1\r\nContent-Length: 500000\r\n\r\n", 500_000);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(outcome.ending).toBe("end");
  });
});
