import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { createHttpSmsSender } from "../../src/delivery/http-sms-sender.ts";
import { DeliveryError } from "../../src/delivery/message-sender.ts";
import { freePort } from "../support/services.ts";
import { startSmsTestGateway, type SmsTestGateway } from "../support/sms-test-gateway.ts";

let gateway: SmsTestGateway;
beforeAll(async () => {
  gateway = await startSmsTestGateway();
});
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.requests.length = 0;
  gateway.status = 202;
  gateway.delayMs = 0;
});

const message = { to: "+447700900123", text: 'Your code is 123456. "quoted" & more\n@login.example #123456' };

describe("the HTTP SMS gateway adapter", () => {
  it("POSTs the default JSON body with the configured headers", async () => {
    const sender = createHttpSmsSender(
      { kind: "http", url: `${gateway.url}/v1/sms`, headers: { Authorization: "Bearer gw-token" } },
      "methods.sms.delivery",
    );
    await sender.send(message);
    const [request] = gateway.requests;
    expect(request).toMatchObject({ method: "POST", url: "/v1/sms" });
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers.authorization).toBe("Bearer gw-token");
    expect(JSON.parse(request!.body)).toEqual({ to: message.to, text: message.text });
  });

  it("sends a form body from a custom template", async () => {
    const sender = createHttpSmsSender(
      { kind: "http", url: `${gateway.url}/send`, format: "form", body: "from=ACME&dest={to}&body={text}" },
      "k",
    );
    await sender.send(message);
    const [request] = gateway.requests;
    expect(request!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request!.body))).toEqual({ from: "ACME", dest: message.to, body: message.text });
  });

  it("puts the values in the query of a GET gateway, percent-encoded, with no body", async () => {
    const sender = createHttpSmsSender({ kind: "http", method: "GET", url: `${gateway.url}/send?to={to}&msg={text}` }, "k");
    await sender.send(message);
    const [request] = gateway.requests;
    expect(request!.method).toBe("GET");
    const query = new URL(request!.url, gateway.url).searchParams;
    expect(query.get("to")).toBe(message.to);
    expect(query.get("msg")).toBe(message.text);
    expect(request!.body).toBe("");
  });

  it("fails with the status only when the gateway refuses", async () => {
    gateway.status = 500;
    const sender = createHttpSmsSender({ kind: "http", url: gateway.url }, "k");
    const error = await sender.send(message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).reason).toBe("answered HTTP 500");
    expect(String((error as Error).message)).not.toContain("123456");
  });

  it("fails after its timeout when the gateway does not answer", async () => {
    gateway.delayMs = 3_000;
    const sender = createHttpSmsSender({ kind: "http", url: gateway.url, timeout: "1s" }, "k");
    const started = Date.now();
    const error = (await sender.send(message).catch((e: unknown) => e)) as DeliveryError;
    expect(error.reason).toBe("timed out");
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("does not follow a redirect (the message would go somewhere nobody configured)", async () => {
    const elsewhere: string[] = [];
    const other = createServer((req, res) => {
      elsewhere.push(req.url ?? "");
      res.end("ok");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const redirector = createServer((_req, res) => {
      res.writeHead(307, { Location: `http://127.0.0.1:${(other.address() as AddressInfo).port}/steal` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    try {
      const sender = createHttpSmsSender({ kind: "http", url: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/send` }, "k");
      const error = (await sender.send(message).catch((e: unknown) => e)) as DeliveryError;
      expect(error.reason).toBe("answered HTTP 307");
      expect(elsewhere).toEqual([]);
    } finally {
      other.close();
      redirector.close();
    }
  });

  it("names the network error when nothing listens", async () => {
    const sender = createHttpSmsSender({ kind: "http", url: `http://127.0.0.1:${await freePort()}/send` }, "k");
    expect(((await sender.send(message).catch((e: unknown) => e)) as DeliveryError).reason).toBe("network error ECONNREFUSED");
  });

  it("refuses plain http to another host at start-up", () => {
    expect(() => createHttpSmsSender({ kind: "http", url: "http://sms.example.com/send" }, "methods.sms.delivery")).toThrow(ConfigError);
    expect(() => createHttpSmsSender({ kind: "http", url: "http://sms.example.com/send" }, "methods.sms.delivery")).toThrow(
      /methods\.sms\.delivery\.url/,
    );
  });
});
