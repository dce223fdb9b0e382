#!/usr/bin/env node
// Entry point for `portcullis` / `npm start`: checks the Node.js version, then loads the TypeScript
// sources through tsx's ESM hook, so there is no build step between a checkout and a running provider.
import { checkNodeVersion } from "./supported-node.js";
import { muteWebCryptoProbeWarnings } from "./webcrypto-warnings.js";

const runtime = checkNodeVersion(process.versions.node);
if (runtime.verdict !== "run") process.stderr.write(`portcullis: ${runtime.message}\n`);
if (runtime.verdict === "refuse") process.exit(1);

muteWebCryptoProbeWarnings();

const { register } = await import("tsx/esm/api");
register();
await import("../src/cli/main.ts");
