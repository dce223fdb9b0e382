import { spawnSync } from "node:child_process";
import { PROJECT_ROOT } from "./workers.ts";

/**
 * The code a run measured: HEAD, and the files the provider runs from that differ from it. Others may
 * commit while the bench runs; a result is only comparable with another of the same code.
 */
export function codeVersion(): { commit: string; uncommitted: string[] } {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: PROJECT_ROOT, encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return { commit: "unknown (not a git checkout)", uncommitted: [] };
  // Everything but the bench, its docs and the tests is part of what the provider runs (or its config).
  const status = git("status", "--porcelain", "--", ".", ":!bench", ":!docs", ":!test");
  const uncommitted = status.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.slice(3));
  return { commit: head.stdout.trim(), uncommitted };
}
