import { networkInterfaces } from "node:os";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { Outbox } from "../../src/delivery/outbox.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/** A logger whose lines the test reads. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  return { logger, lines };
}

describe("the development outbox", () => {
  it("sends nothing: it logs each message and keeps the newest 50, and warns that it is on when it is served", () => {
    const { logger, lines } = capturingLogger();
    const outbox = new Outbox("sms", logger, () => 1_700_000_000_000);
    expect(lines).toEqual([]);
    outbox.router();
    expect(lines.join("")).toMatch(/"event":"outbox_enabled".*never use it in production/);
    for (let i = 0; i < 55; i++) void outbox.send({ to: "+447700900123", text: `code ${String(i).padStart(6, "0")}` });
    const kept = outbox.messages();
    expect(kept).toHaveLength(50);
    expect(kept[0]).toEqual({ to: "+447700900123", text: "code 000005", at: 1_700_000_000_000 });
    expect(lines.filter((l) => l.includes('"event":"outbox_message"'))).toHaveLength(55);
  });

  it("lists the messages to loopback clients only", async () => {
    const outbox = new Outbox("email", pino({ level: "silent" }), Date.now);
    await outbox.send({ to: "alice@example.com", subject: "s", text: "t 123456" });
    const server = express().use(outbox.router()).listen(0, "0.0.0.0");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const local = await fetch(`http://127.0.0.1:${port}/outbox`);
      expect(local.status).toBe(200);
      expect(((await local.json()) as { messages: unknown[] }).messages).toMatchObject([{ to: "alice@example.com", text: "t 123456" }]);
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === "IPv4" && !i.internal);
      if (!external) return console.warn("!!! no non-loopback IPv4 interface: the outbox's refusal of remote clients is not exercised");
      const remote = await fetch(`http://${external.address}:${port}/outbox`);
      expect(remote.status).toBe(404);
      expect(await remote.text()).not.toContain("123456");
    } finally {
      server.close();
    }
  });
});

describe("a code method's delivery is chosen explicitly", () => {
  const started: TestProvider[] = [];
  afterAll(async () => {
    for (const p of started) await p.close();
  });

  it("refuses to start a method without a delivery: there is no default, the outbox least of all", async () => {
    const error = await startTestProvider({ edits: { "login.yaml": { "methods.sms": {} } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toContainEqual(
      expect.objectContaining({
        file: expect.stringMatching(/login\.yaml$/),
        path: "methods.sms.delivery",
        message: 'missing required key "delivery"',
        line: expect.any(Number),
      }),
    );
  });

  it("refuses an unknown delivery kind", async () => {
    const error = await startTestProvider({ edits: { "login.yaml": { "methods.email.delivery": { kind: "outbax" } } } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.some((i) => i.path.startsWith("methods.email.delivery"))).toBe(true);
  });

  it("with SMTP configured, there is no outbox: nothing listed, nothing logged", async () => {
    const p = await startTestProvider({
      edits: {
        "login.yaml": {
          "methods.email.delivery": { kind: "smtp", host: "127.0.0.1", port: 2525, starttls: "never", from: "no-reply@acme.example" },
        },
      },
    });
    started.push(p);
    const res = await fetch(`${p.url}/methods/email/outbox`);
    expect(res.status).toBe(404);
    expect(p.logs.filter((l) => l.event === "outbox_enabled").map((l) => l.method)).toEqual(["sms"]); // the demo's sms still uses it
  });
});
