import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startTestProvider } from "../support/test-provider.ts";

describe("stopping the provider", () => {
  it("lets a request in flight finish before closing, and refuses new connections", async () => {
    const op = await startTestProvider();
    const { port } = new URL(op.url);
    const body = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    const ended = new Promise((resolve) => socket.once("close", resolve));
    // Headers now, body later: the request is in flight when close() is called.
    socket.write(
      `POST /connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 100));
    const closing = op.close();
    await new Promise((r) => setTimeout(r, 200));
    socket.write(body);
    await closing;
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain('"access_token"');
    await expect(fetch(`${op.url}/.well-known/openid-configuration`)).rejects.toThrow();
  });
});
