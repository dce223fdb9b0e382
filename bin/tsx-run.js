#!/usr/bin/env node
// Runs one TypeScript script (bench, generators) through tsx: `node bin/tsx-run.js path/to/script.ts [args]`.
import { register } from "tsx/esm/api";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

register();
const [script, ...rest] = process.argv.slice(2);
if (!script) {
  console.error("usage: node bin/tsx-run.js <script.ts> [args]");
  process.exit(2);
}
process.argv = [process.argv[0], resolve(script), ...rest];
await import(pathToFileURL(resolve(script)).href);
