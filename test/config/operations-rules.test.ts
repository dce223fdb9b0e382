import { afterAll, describe, expect, it } from "vitest";
import { loadInstalledConfig } from "../../src/extensions/installed-extensions.ts";
import { configIssues, removeTempConfigDirs, tempConfigDir } from "./temp-config-dir.ts";

afterAll(removeTempConfigDirs);

const yaml = (...lines: string[]) => `${lines.join("\n")}\n`;
const provider = (...extra: string[]) => ({
  "provider.yaml": yaml("issuer: http://localhost:3000", ...extra),
  "secret.key": "an-encryption-key-of-more-than-32-characters\n",
});
const redis = ["store:", "  url: redis://127.0.0.1:6379", "secrets:", "  encryption_key: ${file:secret.key}"];

describe("listen.workers and metrics rules", () => {
  it("refuses several workers, or auto, on the embedded store, saying why", async () => {
    for (const workers of ["2", "auto"]) {
      const lines = await configIssues(provider("listen:", `  workers: ${workers}`));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^provider\.yaml:3:\d+ listen\.workers: several workers need a shared store: the embedded store belongs to one process/,
      );
    }
  });

  it("accepts several workers on Redis with metrics on a separate listener, and one worker on the embedded store", async () => {
    const cluster = await loadInstalledConfig(
      await tempConfigDir(provider("listen:", "  workers: 4", ...redis, "metrics:", "  listen: 127.0.0.1:9464")),
    );
    expect(cluster.provider.listen.workers).toBe(4);
    const single = await loadInstalledConfig(
      await tempConfigDir(provider("listen:", "  workers: 1", "metrics:", "  token: ${file:secret.key}")),
    );
    expect(single.provider.metrics?.token).toBe("an-encryption-key-of-more-than-32-characters");
  });

  it("refuses a metrics section that says neither where nor how, and a main-port token with several workers", async () => {
    expect(await configIssues(provider("metrics: {}"))).toEqual([
      "provider.yaml:2:10 metrics: give metrics.listen (a separate address, e.g. 127.0.0.1:9464) or metrics.token (a bearer token for /metrics on the main port), or remove the section",
    ]);
    const lines = await configIssues(provider("listen:", "  workers: 2", ...redis, "metrics:", "  token: ${file:secret.key}"));
    expect(lines.join("\n")).toContain("metrics: with several workers, set metrics.listen");
  });

  it("refuses a worker count of 0 and a metrics address without a port", async () => {
    expect((await configIssues(provider("listen:", "  workers: 0"))).join("\n")).toContain("listen.workers");
    expect((await configIssues(provider("metrics:", "  listen: 127.0.0.1"))).join("\n")).toContain("metrics.listen");
  });
});
