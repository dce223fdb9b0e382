import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteJwks } from "../../src/oauth/remote-jwks.ts";
import { clientKeyPair, type ClientKeyPair } from "../support/client-assertions.ts";
import { startJwksServer, type JwksServer } from "../support/jwks-server.ts";

/** The jwks_uri cache on its own (src/oauth/remote-jwks.ts): bounds on what it fetches and how long it keeps it, on a moved clock. */
let server: JwksServer;
let key: ClientKeyPair;
let now = 1_000_000_000_000;
const clock = () => now;
const warnings: unknown[] = [];
const logger = { warn: (fields: unknown) => warnings.push(fields) };

beforeAll(async () => {
  key = await clientKeyPair("ES256", "k1");
  server = await startJwksServer();
});
afterAll(() => server?.close());

describe("RemoteJwks", () => {
  it("honours max-age only within its bounds: a set asking for no caching is still kept a minute", async () => {
    server.publish([key.publicJwk], "no-store");
    const jwks = new RemoteJwks(clock);
    const before = server.fetches;
    expect(await jwks.keys(server.url, "k1")).toHaveLength(1);
    now += 30_000;
    await jwks.keys(server.url, "k1");
    expect(server.fetches - before).toBe(1);
    now += 31_000;
    await jwks.keys(server.url, "k1");
    expect(server.fetches - before).toBe(2);
  });

  it("keeps a set no longer than a day, whatever max-age says", async () => {
    server.publish([key.publicJwk], "max-age=31536000");
    const jwks = new RemoteJwks(clock);
    const before = server.fetches;
    await jwks.keys(server.url, "k1");
    now += 86_400_000 - 1;
    await jwks.keys(server.url, "k1");
    expect(server.fetches - before).toBe(1);
    now += 1;
    await jwks.keys(server.url, "k1");
    expect(server.fetches - before).toBe(2);
  });

  it("refuses an answer over the size limit, and a set of private or unusable keys, and says why in the log", async () => {
    const padding = "x".repeat(70_000);
    server.fail(200, JSON.stringify({ keys: [key.publicJwk], padding }));
    expect(await new RemoteJwks(clock, logger).keys(server.url, "k1")).toEqual([]);
    server.fail(
      200,
      JSON.stringify({
        keys: [
          { ...key.publicJwk, d: "secret" },
          { kty: "RSA", n: "AQAB", e: "AQAB" },
        ],
      }),
    );
    expect(await new RemoteJwks(clock, logger).keys(server.url, "k1")).toEqual([]);
    expect(warnings).toMatchObject([
      { jwks_uri: server.url, reason: "answer larger than 65536 bytes", kept: false },
      { jwks_uri: server.url, reason: "no usable signing key in the answer", kept: false },
    ]);
  });

  it("follows no redirect: a key server that moves its set elsewhere is a failure", async () => {
    const redirecting: Server = createServer((_req, res) => res.writeHead(302, { location: server.url }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    server.publish([key.publicJwk]);
    const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/jwks`;
    expect(await new RemoteJwks(clock).keys(url, "k1")).toEqual([]);
    await new Promise<void>((resolve) => redirecting.close(() => resolve()));
  });

  it("asks a key server that keeps failing once per floor, also when no set was ever had", async () => {
    server.fail(500);
    const jwks = new RemoteJwks(clock);
    const before = server.fetches;
    for (let i = 0; i < 5; i++) expect(await jwks.keys(server.url, `kid-${i}`)).toEqual([]);
    expect(server.fetches - before).toBe(1);
    now += 60_000;
    server.publish([key.publicJwk]);
    expect(await jwks.keys(server.url, "k1")).toHaveLength(1);
    expect(server.fetches - before).toBe(2);
  });

  it("asks once for many concurrent requests", async () => {
    server.publish([key.publicJwk]);
    const jwks = new RemoteJwks(clock);
    const before = server.fetches;
    const sets = await Promise.all(Array.from({ length: 10 }, () => jwks.keys(server.url, "k1")));
    expect(sets.every((set) => set.length === 1)).toBe(true);
    expect(server.fetches - before).toBe(1);
  });
});
