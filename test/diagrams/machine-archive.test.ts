/** The archive of flow versions that `portcullis audit trace` draws from (src/diagrams/machine-archive.ts). */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { mermaidStatechart } from "../../src/diagrams/mermaid-statechart.ts";
import { MachineArchive, leafPaths, machineArchiveDir, readArchivedMachine } from "../../src/diagrams/machine-archive.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-archive-"));
  dirs.push(dir);
  return dir;
}

const machine = createLoginFlow([
  { id: "password", identifiesUser: true },
  { id: "totp", identifiesUser: false },
]);
const flow = { id: "default", hash: "AbCdEfGhIjKlMnOpQrStUv", machine };

describe("the machine archive", () => {
  it("keeps a version once, as its statechart and leaf states, and reads it back by hash", () => {
    const data = dataDir();
    const errors: Error[] = [];
    const archive = new MachineArchive(machineArchiveDir(data), (e) => errors.push(e));
    archive.keep(flow);
    const file = join(machineArchiveDir(data), `${flow.hash}.json`);
    const written = statSync(file).mtimeMs;
    archive.keep(flow);
    expect(statSync(file).mtimeMs).toBe(written);
    expect(readdirSync(machineArchiveDir(data))).toEqual([`${flow.hash}.json`]);
    const read = readArchivedMachine(data, flow.hash)!;
    expect(read).toEqual({ hash: flow.hash, flow_id: "default", statechart: mermaidStatechart(machine), leaves: leafPaths(machine) });
    expect(read.leaves).toContain("signingIn.totp");
    expect(read.leaves).not.toContain("signingIn");
    expect(errors).toEqual([]);
  });

  it("leaves a version another process kept as it is", () => {
    const data = dataDir();
    mkdirSync(machineArchiveDir(data), { recursive: true });
    const file = join(machineArchiveDir(data), `${flow.hash}.json`);
    writeFileSync(file, "kept by another process");
    new MachineArchive(machineArchiveDir(data), () => {}).keep(flow);
    expect(readFileSync(file, "utf8")).toBe("kept by another process");
  });

  it("reads nothing for a hash that is not one (no path outside the archive), a missing version or a file that is not a version", () => {
    const data = dataDir();
    new MachineArchive(machineArchiveDir(data), () => {}).keep(flow);
    writeFileSync(join(data, "secret.json"), JSON.stringify({ hash: "../secret" }));
    expect(readArchivedMachine(data, "../secret")).toBeUndefined();
    expect(readArchivedMachine(data, "ZZZZZZZZZZZZZZZZZZZZZZ")).toBeUndefined();
    writeFileSync(
      join(machineArchiveDir(data), "YYYYYYYYYYYYYYYYYYYYYY.json"),
      JSON.stringify({ hash: "YYYYYYYYYYYYYYYYYYYYYY", flow_id: "x" }),
    );
    expect(readArchivedMachine(data, "YYYYYYYYYYYYYYYYYYYYYY")).toBeUndefined();
  });

  it("reports a version it cannot write instead of throwing", () => {
    const data = dataDir();
    writeFileSync(join(data, "machines"), "a file where the folder should be");
    const errors: Error[] = [];
    new MachineArchive(machineArchiveDir(data), (e) => errors.push(e)).keep(flow);
    expect(errors).toHaveLength(1);
  });
});
