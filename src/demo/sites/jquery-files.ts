import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { StaticFile } from "../../http-kit/send-static-file.ts";

/** The two jQuery builds the demo pages load (devDependencies: the demo runs from a development checkout). */
const FILES = {
  "jquery-4.js": "../../../node_modules/jquery/dist/jquery.js",
  "jquery-1.7.js": "../../../node_modules/jquery-1.7/tmp/jquery.js",
} as const;

export type JqueryFile = keyof typeof FILES;

/** Reads both builds once; a missing one is a clear startup error (npm install with dev dependencies). */
export async function readJqueryFiles(): Promise<Record<JqueryFile, StaticFile>> {
  const entries = await Promise.all(
    Object.entries(FILES).map(async ([name, relative]) => {
      const path = fileURLToPath(new URL(relative, import.meta.url));
      const body = await readFile(path).catch(() => {
        throw new Error(`${path} is missing: the demo sites serve jQuery from the development dependencies (npm install)`);
      });
      const file: StaticFile = {
        body,
        type: "text/javascript; charset=utf-8",
        etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
      };
      return [name, file] as const;
    }),
  );
  return Object.fromEntries(entries) as Record<JqueryFile, StaticFile>;
}
