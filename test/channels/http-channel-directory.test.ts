import { createServer, type Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChannelService, type RunningChannelService } from "../../src/demo/channel-service/start-channel-service.ts";
import { ChannelDirectoryUnavailable } from "../../src/channels/channel-directory-unavailable.ts";
import { HttpChannelDirectory } from "../../src/channels/http-channel-directory.ts";
import { DEMO_CONFIG_DIR } from "../config/temp-config-dir.ts";
import { freePort } from "../support/services.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

let p: TestProvider;
let service: RunningChannelService;
let servicePort: number;

/** The provider points its directory at the reference service's port, then the service starts there with the demo's channels. */
beforeAll(async () => {
  servicePort = await freePort();
  p = await startTestProvider({
    edits: {
      "channels.yaml": {
        directory: { kind: "http", url: `http://127.0.0.1:${servicePort}`, client_id: "demo-channel-directory" },
        channels: [],
      },
    },
  });
  service = await startChannelService({ channelsFile: `${DEMO_CONFIG_DIR}/channels.yaml`, issuer: p.issuer, port: servicePort });
});

afterAll(async () => {
  await service?.close();
  await p?.close();
});

describe("http channel directory (against the reference channel-account service)", () => {
  it("lists a user's channels as the service has them", async () => {
    expect(await p.provider.channels.channelsOf("E10002")).toEqual([
      { id: "north-store", name: "North Store", icon: "https://example.com/channels/north-store.png", roleId: 0 },
      { id: "south-store", name: "South Store", icon: "https://example.com/channels/south-store.png", roleId: 2 },
    ]);
    expect(await p.provider.channels.channelsOf("E99999")).toEqual([]);
  });

  it("answers administers with the administered channel only", async () => {
    expect(await p.provider.channels.administers("E10002", "south-store")).toMatchObject({ id: "south-store", roleId: 2 });
    expect(await p.provider.channels.administers("E10002", "north-store")).toBeUndefined();
    expect(await p.provider.channels.administers("E10001", "online-shop")).toMatchObject({ roleId: 1 });
  });

  it("is temporarily_unavailable (503) when the service is down, naming the cause without the URL or token", async () => {
    const port = await freePort();
    const logged: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => void logged.push(args) };
    const directory = new HttpChannelDirectory({
      url: `http://127.0.0.1:${port}/x`,
      timeoutMs: 30_000,
      accessToken: () => "secret-token",
      logger,
    });
    const error = await directory.channelsOf("E10001").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelDirectoryUnavailable);
    expect(error).toMatchObject({ status: 503, error: "temporarily_unavailable", reason: "network error ECONNREFUSED" });
    expect(String((error as Error).message)).not.toContain("secret-token");
    expect(logged).toEqual([
      [{ service: `http://127.0.0.1:${port}`, reason: "network error ECONNREFUSED" }, "channel directory unavailable"],
    ]);
  });
});

describe("http channel directory against a misbehaving service", () => {
  let server: Server;
  let answer: (res: import("node:http").ServerResponse) => void;
  const seen: Array<{ url?: string; authorization?: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      answer(res);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const directory = (timeoutMs = 30_000) =>
    new HttpChannelDirectory({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`,
      timeoutMs,
      accessToken: () => "the-token",
      logger: { warn: () => undefined },
    });
  const json = (status: number, body: unknown) => (res: import("node:http").ServerResponse) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

  it("sends the token as a Bearer to {url}/directory/users/{sub}/channels, the sub escaped", async () => {
    answer = json(200, { channels: [] });
    expect(await directory().channelsOf("a/b c")).toEqual([]);
    expect(seen.at(-1)).toEqual({ url: "/base/directory/users/a%2Fb%20c/channels", authorization: "Bearer the-token" });
  });

  it.each([
    ["a non-2xx status", json(401, { code: 401 }), "answered HTTP 401"],
    [
      "a body that is not JSON",
      (res: import("node:http").ServerResponse) => res.end("<html>"),
      "answered something that is not a channel list",
    ],
    [
      "an icon that is not a web URL",
      json(200, { channels: [{ id: "x", name: "X", icon: "javascript:alert(1)", roleId: 2 }] }),
      "answered something that is not a channel list",
    ],
    [
      "a roleId the spec does not have",
      json(200, { channels: [{ id: "x", name: "X", icon: "https://x.example/i.png", roleId: 3 }] }),
      "answered something that is not a channel list",
    ],
  ])("is temporarily_unavailable for %s", async (_what, respond, reason) => {
    answer = respond;
    await expect(directory().channelsOf("E10001")).rejects.toMatchObject({ status: 503, reason });
  });

  it("gives up at its deadline on a service that never answers", async () => {
    answer = () => undefined;
    await expect(directory(300).channelsOf("E10001")).rejects.toMatchObject({ status: 503, reason: "timed out" });
  });
});
