import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCredentialsToken } from "./helpers.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * A client that starts a request and never finishes it must not hold a connection: with short
 * `listen:` timeouts set by the test, the provider answers 408 and closes. The bounds are generous
 * (they say "seconds, not minutes"); the lower one holds on any machine, since a timer never fires early.
 */
describe("slow clients", () => {
  let op: TestProvider;
  beforeAll(async () => {
    op = await startTestProvider({ edits: { "provider.yaml": { "listen.headers_timeout": "1s", "listen.request_timeout": "2s" } } });
  });
  afterAll(() => op?.close());

  /** Writes `text` on a raw connection and resolves once the provider closes it: what it answered, and when. */
  async function sendAndWaitForClose(text: string) {
    const socket = connect(Number(new URL(op.url).port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});
    await new Promise((resolve) => socket.once("connect", resolve));
    const started = Date.now();
    socket.write(text);
    await closed;
    return { answer, elapsed: Date.now() - started };
  }

  it("answers a request whose body never arrives in full with 408 and closes, once request_timeout has passed", async () => {
    const head =
      "POST /connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n";
    const { answer, elapsed } = await sendAndWaitForClose(head + "grant_type");
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(15_000);
    // The endpoint that was waiting for the body gives up quietly: no error logged, no 500.
    expect(op.logs.filter((l) => (l.level as number) >= 50 || l.status === 500)).toEqual([]);
  });

  it("answers a request whose headers never end with 408 and closes, once headers_timeout has passed", async () => {
    const { answer, elapsed } = await sendAndWaitForClose("GET /.well-known/openid-configuration HTTP/1.1\r\nHost: x\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(15_000);
  });

  it("serves a client that sends its request at once as usual", async () => {
    expect(await clientCredentialsToken(op)).toMatch(/^ey/);
  });
});
