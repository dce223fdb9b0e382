import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchError } from "../bench-error.ts";

export interface BaseTree {
  /** The commit checked out. */
  commit: string;
  /** Where: a detached git worktree in a temp dir, sharing the project's node_modules. */
  root: string;
  remove(): void;
}

/**
 * Checks `revision` out next to the project, so its provider can run beside the working tree's. The
 * worktree shares the project's node_modules (a revision whose dependencies differ needs its own install,
 * which this does not do), and is removed again by `remove`.
 */
export function checkOutBase(projectRoot: string, revision: string): BaseTree {
  const commit = git(projectRoot, ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
  if (commit === undefined) throw new BenchError(`--base: "${revision}" is not a commit of this repository`);
  const root = join(mkdtempSync(join(tmpdir(), "portcullis-base-")), "tree");
  if (git(projectRoot, ["worktree", "add", "--detach", "--quiet", root, commit]) === undefined) {
    throw new BenchError(`--base: could not check out ${commit.slice(0, 12)} into ${root}`);
  }
  symlinkSync(join(projectRoot, "node_modules"), join(root, "node_modules"), "dir");
  return {
    commit,
    root,
    remove() {
      if (!existsSync(root)) return;
      git(projectRoot, ["worktree", "remove", "--force", root]);
      rmSync(join(root, ".."), { recursive: true, force: true });
      git(projectRoot, ["worktree", "prune"]);
    },
  };
}

/** stdout of a git command, trimmed; undefined when it fails. */
function git(cwd: string, args: readonly string[]): string | undefined {
  const run = spawnSync("git", args, { cwd, encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : undefined;
}
