#!/usr/bin/env node
// Entry point for `portcullis` / `npm start`: checks the Node.js version, then loads the TypeScript
// sources as they are. Node (22.18+, 24) strips their types itself, so there is no build step and no
// loader between a checkout and a running provider.
import { checkNodeVersion } from "./supported-node.js";
import { muteExpectedWarnings } from "./muted-warnings.js";

const runtime = checkNodeVersion(process.versions.node);
if (runtime.verdict !== "run") process.stderr.write(`portcullis: ${runtime.message}\n`);
if (runtime.verdict === "refuse") process.exit(1);

muteExpectedWarnings();

// Imported only now: an unsupported Node gets the one line above instead of a syntax error.
await import("../src/cli/main.ts");
