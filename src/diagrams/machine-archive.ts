import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { mermaidStatechart } from "./mermaid-statechart.ts";

/** A login flow as the runtime builds it (runtime/login-flows.ts RunnableFlow): its id, definition hash and machine. */
type Flow = { readonly id: string; readonly hash: string; readonly machine: AnyStateMachine };

/** A flow version as kept: enough to draw it and highlight a path on it, with no plugin or store behind it. */
export interface ArchivedMachine {
  hash: string;
  flow_id: string;
  /** The Mermaid statechart (mermaid-statechart.ts) of the flow machine. */
  statechart: string;
  /** Its leaf states as dotted paths: the states a path can highlight (highlight-path.ts). */
  leaves: string[];
}

/** A flow's definition hash: 22 base64url characters (runtime/login-flows.ts). Checked before it names a file. */
const MACHINE_HASH = /^[A-Za-z0-9_-]{22}$/;

export const machineArchiveDir = (dataDir: string) => join(dataDir, "machines");

/** Where version `hash` is kept in the archive folder `dir`. */
const versionFile = (dir: string, hash: string) => join(dir, `${hash}.json`);

/** Where version `hash` is kept under `dataDir` (what `portcullis audit trace` names). */
export const archivedMachinePath = (dataDir: string, hash: string) => versionFile(machineArchiveDir(dataDir), hash);

/**
 * Every login flow version this provider has run, kept by its definition hash as
 * `<data_dir>/machines/<hash>.json`, so that `portcullis audit trace` draws the exact version a login
 * ran after a reload or a restart has changed the flow (the diagrams page draws only what runs now).
 * A version is written once, when the first step of a login runs on it in this process; a file that is
 * there already (another process, an earlier run) is left as it is — the hash names its content. A
 * failed write is reported, never thrown: a login must not fail for its archive.
 */
export class MachineArchive {
  private readonly dir: string;
  private readonly onError: (error: Error) => void;
  private readonly kept = new Set<string>();

  constructor(dir: string, onError: (error: Error) => void) {
    this.dir = dir;
    this.onError = onError;
  }

  keep(flow: Flow): void {
    if (this.kept.has(flow.hash)) return;
    this.kept.add(flow.hash);
    const file = versionFile(this.dir, flow.hash);
    try {
      if (existsSync(file)) return;
      mkdirSync(this.dir, { recursive: true });
      // Written aside and renamed: a reader (audit trace) never sees half a file.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, `${JSON.stringify(archivedMachine(flow), null, 2)}\n`);
      renameSync(partial, file);
    } catch (error) {
      this.onError(error as Error);
    }
  }
}

export function archivedMachine(flow: Flow): ArchivedMachine {
  return { hash: flow.hash, flow_id: flow.id, statechart: mermaidStatechart(flow.machine), leaves: leafPaths(flow.machine) };
}

/** The archived version `hash` under `dataDir`, or undefined when none was kept (or the file is not one). */
export function readArchivedMachine(dataDir: string, hash: string): ArchivedMachine | undefined {
  if (!MACHINE_HASH.test(hash)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(archivedMachinePath(dataDir, hash), "utf8"));
  } catch {
    return undefined;
  }
  const archived = parsed as Partial<ArchivedMachine>;
  const valid =
    archived.hash === hash &&
    typeof archived.flow_id === "string" &&
    typeof archived.statechart === "string" &&
    Array.isArray(archived.leaves) &&
    archived.leaves.every((l) => typeof l === "string");
  return valid ? (archived as ArchivedMachine) : undefined;
}

/** The machine's leaf states, as dotted paths from the root (`signingIn.password`). */
export function leafPaths(machine: AnyStateMachine): string[] {
  const leaves: string[] = [];
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states as Record<string, AnyStateNode>);
    if (children.length === 0) leaves.push(node.path.join("."));
    else children.forEach(visit);
  };
  visit(machine.root);
  return leaves;
}
