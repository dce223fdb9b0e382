import { spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bufferedDestination } from "../../src/logging/buffered-destination.ts";

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-buffered-"));
  dirs.push(dir);
  return join(dir, "lines.log");
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const lines = (count: number) => Array.from({ length: count }, (_, i) => `{"line":${i},"pad":"${"x".repeat(i % 97)}"}\n`);

describe("bufferedDestination", () => {
  it("writes every line, in order, across many batches, once flushed", async () => {
    const path = tempFile();
    const destination = bufferedDestination(openSync(path, "a"));
    const written = lines(3000); // ~200 KB: a dozen batches, some while a write is in flight
    for (const line of written) destination.write(line);
    await new Promise<void>((resolve) => destination.flush(() => resolve()));
    expect(readFileSync(path, "utf8")).toBe(written.join(""));
  });

  it("writes a lone line without a flush, on its timer", async () => {
    const path = tempFile();
    const destination = bufferedDestination(openSync(path, "a"));
    destination.write('{"alone":true}\n');
    await vi.waitFor(() => expect(readFileSync(path, "utf8")).toBe('{"alone":true}\n'), { timeout: 10_000, interval: 50 });
  });

  it("on end, writes what is pending and stops batching: a line written afterwards is in the file at once", async () => {
    const path = tempFile();
    const destination = bufferedDestination(openSync(path, "a"));
    const written = lines(50);
    for (const line of written) destination.write(line);
    // Batched, under the batch size and before the timer: nothing written yet.
    expect(readFileSync(path, "utf8")).toBe("");
    await new Promise<void>((resolve) => destination.end(resolve));
    expect(readFileSync(path, "utf8")).toBe(written.join(""));
    destination.write('{"late":true}\n');
    expect(readFileSync(path, "utf8")).toBe(written.join("") + '{"late":true}\n');
    // A second end changes nothing and still calls back.
    await new Promise<void>((resolve) => destination.end(resolve));
  });

  it("writes the lines still batched when the process exits", () => {
    const path = tempFile();
    const fixture = join(import.meta.dirname, "fixtures", "write-lines-and-exit.ts");
    const run = spawnSync(process.execPath, [fixture, path, "500"], { cwd: join(import.meta.dirname, "..", ".."), encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const written = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(written).toEqual(Array.from({ length: 500 }, (_, i) => `{"line":${i}}`));
  });
});
