import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleAsset, serveAsset } from "../../src/views/assets.ts";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";

describe("serveAsset", () => {
  it("serves the stylesheet from memory with its type", () => {
    for (const path of ["portcullis.css", "/portcullis.css"]) {
      const asset = serveAsset(path);
      expect(asset?.type).toBe("text/css; charset=utf-8");
      expect(asset?.body.equals(readFileSync(join(VIEWS_DIR, "assets", "portcullis.css")))).toBe(true);
      expect(asset?.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    }
  });

  it.each([
    "",
    "/",
    "missing.css",
    "../package.json",
    "..%2fpackage.json",
    "%2e%2e/package.json",
    "../../package.json",
    "/etc/passwd",
    "./portcullis.css",
    "portcullis.css/",
    "portcullis.css/..",
    "assets/portcullis.css",
    "//portcullis.css",
    "portcullis.css\u0000.png",
    "PORTCULLIS.CSS",
    "i18n/en.yaml",
    "../i18n/en.yaml",
    "__proto__",
    "constructor",
  ])("refuses %j", (path) => {
    expect(serveAsset(path)).toBeUndefined();
  });
});

describe("handleAsset", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (!handleAsset(req, res)) {
        res.writeHead(404);
        res.end("not found");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("serves a known file with caching headers, and 304 for its ETag", async () => {
    const res = await fetch(`${base}/assets/portcullis.css?v=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toContain(".card");
    const again = await fetch(`${base}/assets/portcullis.css`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it.each(["/assets/missing.css", "/assets/../package.json", "/assets/%2e%2e/package.json", "/assets", "/other/portcullis.css"])(
    "leaves %s to the next handler",
    async (path) => {
      const res = await fetch(base + path);
      expect(res.status).toBe(404);
    },
  );

  it("answers only GET and HEAD", async () => {
    expect((await fetch(`${base}/assets/portcullis.css`, { method: "POST" })).status).toBe(404);
    const head = await fetch(`${base}/assets/portcullis.css`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});
