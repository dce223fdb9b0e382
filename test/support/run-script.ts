import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Runs a TypeScript entry point (a path from the repository root) as its npm script does, `node <file>`
 * (Node strips the types), with its output captured.
 */
export function runScript(main: string, args: string[]) {
  const child = spawn(process.execPath, [fileURLToPath(new URL(`../../${main}`, import.meta.url)), ...args]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}
