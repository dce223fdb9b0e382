import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VIEWS_DIR } from "../../src/views/views-dir.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(async () => {
  await p?.close();
});

const file = (name: string) => readFileSync(join(VIEWS_DIR, "assets", name));
/** Cache lifetime in seconds from a Cache-Control header. */
const maxAge = (header: string | null) => Number(/(?:^|[,\s])max-age=(\d+)/.exec(header ?? "")?.[1]);

describe("the site icon", () => {
  it.each([
    ["/favicon.ico", "image/x-icon", "favicon.ico"],
    ["/favicon.svg", "image/svg+xml", "favicon.svg"],
  ])("serves %s as %s, public and cached for at least a week", async (path, type, name) => {
    const res = await fetch(p.url + path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toMatch(/^public, /);
    expect(maxAge(res.headers.get("cache-control"))).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(Buffer.from(await res.arrayBuffer()).equals(file(name))).toBe(true);
  });

  it("is a real icon: an ICO directory of PNG images, and an SVG drawing", () => {
    const ico = file("favicon.ico");
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    const count = ico.readUInt16LE(4);
    expect(count).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < count; i++) {
      const offset = ico.readUInt32LE(6 + 16 * i + 12);
      expect(ico.subarray(offset, offset + 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    }
    expect(file("favicon.svg").toString()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it("answers a revalidation with 304 and HEAD without a body", async () => {
    const first = await fetch(`${p.url}/favicon.ico`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await fetch(`${p.url}/favicon.ico`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const head = await fetch(`${p.url}/favicon.svg`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("is linked from every page, and each link leads to the icon", async () => {
    const page = await send(`${p.url}/account`);
    const links = [...page.text.matchAll(/<link rel="icon" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links).toEqual(["/favicon.ico", "/favicon.svg"]);
    for (const href of links) expect((await fetch(new URL(href, p.url))).status).toBe(200);
  });

  it("is not served for other methods or other names", async () => {
    expect((await send(`${p.url}/favicon.ico`, { method: "POST" })).status).toBe(404);
    expect((await send(`${p.url}/favicon.png`)).status).toBe(404);
    expect((await send(`${p.url}/favicon.ico/`)).status).toBe(404);
  });
});
