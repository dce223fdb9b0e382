import { describe, expect, it } from "vitest";
import { parseRedisUrl } from "../../src/stores/redis-url.ts";

describe("parseRedisUrl", () => {
  it("passes a plain Redis URL on untouched, with no replicas to wait for", () => {
    expect(parseRedisUrl("redis://:pw@127.0.0.1:6379/2")).toEqual({
      connection: { kind: "server", url: "redis://:pw@127.0.0.1:6379/2" },
      replication: { replicas: 0, timeoutMs: 500 },
    });
  });

  it("takes prefix, wait and wait_timeout_ms off a plain URL, keeping the driver's own parameters", () => {
    const target = parseRedisUrl("redis://127.0.0.1:6379?prefix=blue&wait=2&wait_timeout_ms=250&foo=bar");
    expect(target).toEqual({
      connection: { kind: "server", url: "redis://127.0.0.1:6379?foo=bar" },
      replication: { replicas: 2, timeoutMs: 250 },
      keyPrefix: "blue:",
    });
  });

  it("reads a Sentinel URL: the sentinels (26379 by default), the primary's name, the data nodes' credentials, one replica to wait for", () => {
    const target = parseRedisUrl("redis+sentinel://app:p%40ss@10.0.0.1:26380,sentinel-b,[::1]:26381/my-primary?prefix=prod");
    expect(target).toEqual({
      connection: {
        kind: "sentinel",
        primaryName: "my-primary",
        sentinels: [
          { host: "10.0.0.1", port: 26380 },
          { host: "sentinel-b", port: 26379 },
          { host: "::1", port: 26381 },
        ],
        username: "app",
        password: "p@ss",
      },
      replication: { replicas: 1, timeoutMs: 500 },
      keyPrefix: "prod:",
    });
    expect(parseRedisUrl("redis+sentinel://127.0.0.1/p?wait=0").replication.replicas).toBe(0);
  });

  it.each([
    ["redis+sentinel://:S3cretPassw0rd@127.0.0.1:26379", /not a Sentinel URL/],
    ["redis+sentinel://:S3cretPassw0rd@127.0.0.1:99999/p", /not a sentinel HOST\[:PORT\]/],
    ["redis+sentinel://:S3cretPassw0rd@127.0.0.1/p?db=2", /unknown parameter "db"/],
    ["redis+sentinel://:S3cretPassw0rd@127.0.0.1/p?wait=-1", /wait=-1 must be a whole number from 0 to 16/],
    ["redis://:S3cretPassw0rd@127.0.0.1?wait_timeout_ms=5000", /wait_timeout_ms=5000 must be a whole number from 1 to 1000/],
    ["redis://:S3cretPassw0rd@127.0.0.1?prefix=a%20b", /prefix "a b" must be/],
  ])("refuses %s clearly, without echoing the password", (url, message) => {
    let error: Error | undefined;
    try {
      parseRedisUrl(url);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain("S3cretPassw0rd");
  });
});
