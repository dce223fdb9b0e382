/** The audit sink: its own stream of JSON lines, where provider.yaml's audit section says. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { auditFilePath, createAuditTrail } from "../../src/audit/create-audit-trail.ts";
import { ConfigError } from "../../src/errors/config-error.ts";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { eventually } from "../support/relying-party.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-audit-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const lock: AuditEvent = { type: "lockout", sub: "E10002", method: "password" };
const revoked: AuditEvent = { type: "token.revoked", client_id: "demo-web", token_type: "access_token", jti: "j-1" };

/** The complete lines of the file (a write may be under way: its line counts once it has its newline). */
const readLines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").slice(0, -1) : []);

describe("createAuditTrail", () => {
  it("appends one JSON line per event, {time, type, facts}, to a file under data_dir (created with its folder)", async () => {
    const dataDir = join(tempDir(), "var");
    const trail = createAuditTrail({ enabled: true, destination: "logs/audit.log" }, dataDir);
    trail.record(lock);
    trail.record(revoked);
    await trail.close();
    const path = join(dataDir, "logs/audit.log");
    await eventually(() => readLines(path).length === 2, "two lines");
    const [first, second] = readLines(path).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(first!)).toEqual(["time", "type", "sub", "method"]);
    expect(first).toMatchObject(lock);
    expect(new Date(String(first!.time)).toISOString()).toBe(first!.time);
    expect(second).toEqual({ time: second!.time, ...revoked });

    // A second trail (a restart) appends.
    const again = createAuditTrail({ enabled: true, destination: "logs/audit.log" }, dataDir);
    again.record(lock);
    await again.close();
    await eventually(() => readLines(path).length === 3, "a third line");
  });

  it("writes to an absolute path as given, and tells its listeners either way", async () => {
    const path = join(tempDir(), "abs.log");
    expect(auditFilePath(path, "/elsewhere")).toBe(path);
    const trail = createAuditTrail({ enabled: true, destination: path }, "var");
    const heard: AuditEvent[] = [];
    trail.subscribe((event) => heard.push(event));
    trail.record(lock);
    await trail.close();
    await eventually(() => readLines(path).length === 1, "one line");
    expect(heard).toEqual([lock]);
  });

  it("writes to a given stream (stdout and stderr are streams like it)", () => {
    const chunks: string[] = [];
    const stream = new Writable({
      write: (chunk, _enc, done) => {
        chunks.push(String(chunk));
        done();
      },
    });
    createAuditTrail({ enabled: true, destination: "stdout" }, "var", stream).record(revoked);
    expect(JSON.parse(chunks.join(""))).toMatchObject(revoked);
  });

  it("reports a failed write (a full disk) to onError instead of throwing or crashing", async () => {
    const failing = new Writable({ write: (_chunk, _enc, done) => done(new Error("ENOSPC: no space left on device")) });
    const reported: Error[] = [];
    const trail = createAuditTrail({ enabled: true, destination: "stdout" }, "var", failing, (error) => reported.push(error));
    const heard: AuditEvent[] = [];
    trail.subscribe((event) => heard.push(event));
    expect(() => trail.record(lock)).not.toThrow();
    await eventually(() => reported.length === 1, "the error reported");
    expect(reported[0]!.message).toContain("ENOSPC");
    expect(heard).toEqual([lock]);
  });

  it("writes nothing when disabled, but its listeners still hear (metrics)", () => {
    const dataDir = tempDir();
    const trail = createAuditTrail({ enabled: false, destination: "audit.log" }, dataDir);
    const heard: AuditEvent[] = [];
    trail.subscribe((event) => heard.push(event));
    trail.record(lock);
    expect(heard).toEqual([lock]);
    expect(existsSync(join(dataDir, "audit.log"))).toBe(false);
  });

  it("refuses, as a configuration error naming the key, a file it cannot open", () => {
    // data_dir is a file: no folder can be made there.
    const blocker = join(tempDir(), "a-file");
    writeFileSync(blocker, "not a directory");
    const attempt = () => createAuditTrail({ enabled: true, destination: "audit.log" }, blocker);
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/audit\.destination: cannot open the audit file .*audit\.log \((ENOTDIR|EEXIST)\)/);
  });
});
