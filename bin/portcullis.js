#!/usr/bin/env node
// Entry point for `portcullis` / `npm start`: loads the TypeScript sources through tsx's ESM hook,
// so there is no build step between a checkout and a running provider.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
