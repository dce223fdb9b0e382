import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PidFileInUseError, pidFilePath, writePidFile } from "../../src/reload/pid-file.ts";

const dataDir = mkdtempSync(`${tmpdir()}/portcullis-pid-`);
const children: ChildProcess[] = [];
afterEach(() => rmSync(pidFilePath(dataDir), { force: true }));
afterAll(() => {
  children.forEach((child) => child.kill("SIGKILL"));
  rmSync(dataDir, { recursive: true, force: true });
});

/** A real process that lives until killed; `args` show in its command line (once spawned: exec has happened). */
async function sleeper(...args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", ...args], { stdio: "ignore" });
  children.push(child);
  await once(child, "spawn");
  return child;
}

describe("writePidFile", () => {
  it("writes this process's pid and removes it again", () => {
    const remove = writePidFile(dataDir);
    expect(readFileSync(pidFilePath(dataDir), "utf8")).toBe(`${process.pid}\n`);
    remove();
    expect(existsSync(pidFilePath(dataDir))).toBe(false);
  });

  it("refuses while the file names another live portcullis process", async () => {
    const other = await sleeper("portcullis", "start");
    writeFileSync(pidFilePath(dataDir), `${other.pid}\n`);
    expect(() => writePidFile(dataDir)).toThrow(PidFileInUseError);
    expect(() => writePidFile(dataDir)).toThrow(`another portcullis process (pid ${other.pid}) runs with data_dir ${dataDir}`);
    expect(readFileSync(pidFilePath(dataDir), "utf8")).toBe(`${other.pid}\n`);
  });

  it("replaces a stale file: its process gone, or its pid now another program's", async () => {
    const gone = await sleeper("portcullis");
    const exited = new Promise((resolve) => gone.once("exit", resolve));
    gone.kill("SIGKILL");
    await exited;
    writeFileSync(pidFilePath(dataDir), `${gone.pid}\n`);
    writePidFile(dataDir);
    expect(readFileSync(pidFilePath(dataDir), "utf8")).toBe(`${process.pid}\n`);

    const unrelated = await sleeper("something-else");
    writeFileSync(pidFilePath(dataDir), `${unrelated.pid}\n`);
    writePidFile(dataDir);
    expect(readFileSync(pidFilePath(dataDir), "utf8")).toBe(`${process.pid}\n`);
  });
});
