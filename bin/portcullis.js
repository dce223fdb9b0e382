#!/usr/bin/env node
// Entry point for `portcullis` / `npm start`: checks the Node.js version, then loads the TypeScript
// sources as they are. Node (22.18+, 24) strips their types itself, so there is no build step and no
// loader between a checkout and a running provider.
import module from "node:module";
import { checkNodeVersion } from "./supported-node.js";
import { muteExpectedWarnings } from "./muted-warnings.js";

const runtime = checkNodeVersion(process.versions.node);
if (runtime.verdict !== "run") process.stderr.write(`portcullis: ${runtime.message}\n`);
if (runtime.verdict === "refuse") process.exit(1);

muteExpectedWarnings();

// Node keeps the code it compiled (on 24 also the sources with their types stripped) in a cache directory,
// <tmpdir>/node-compile-cache, keyed by content and Node version: a later start skips that work, about half
// of a CLI command's start-up (docs/performance.md). Where the directory cannot be written, Node runs
// without it; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

// Imported only now: an unsupported Node gets the one line above instead of a syntax error.
await import("../src/cli/main.ts");
