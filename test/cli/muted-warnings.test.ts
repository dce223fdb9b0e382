import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

const MODULE = new URL("../../bin/muted-warnings.js", import.meta.url).href;
const TYPESCRIPT_MODULE = new URL("fixtures/typed-module.ts", import.meta.url).href;

/** Runs `body` in a fresh Node process after bin/portcullis.js's warning setup; resolves to its stderr. */
function stderrOf(body: string): Promise<string> {
  const script = `import { muteExpectedWarnings } from ${JSON.stringify(MODULE)};\nmuteExpectedWarnings();\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", () => resolve(stderr));
  });
}

describe("the CLI's warnings", () => {
  it("leaves out the ExperimentalWarnings of libraries probing WebCrypto, and prints every other warning as Node does", async () => {
    const stderr = await stderrOf(`
      // Node 24's own texts, as the probes of @simplewebauthn/server and jose raise them.
      process.emitWarning("The supports Web Crypto API method is an experimental feature and might change at any time", "ExperimentalWarning");
      process.emitWarning("The ML-DSA-44 Web Crypto API algorithm is an experimental feature and might change at any time", "ExperimentalWarning");
      // The probe itself, where this Node line has it.
      globalThis.crypto.subtle.constructor.supports?.("sign", "Ed25519");
      process.emitWarning("some other feature is an experimental feature", "ExperimentalWarning");
      process.emitWarning("this call is deprecated", "DeprecationWarning", "DEP9999");
    `);
    expect(stderr).not.toContain("Web Crypto API");
    expect(stderr).toContain("ExperimentalWarning: some other feature is an experimental feature");
    expect(stderr).toContain("[DEP9999] DeprecationWarning: this call is deprecated");
  });

  it("leaves out the warning of Node 24.0–24.2 at the first TypeScript file it strips, and nothing else", async () => {
    const stderr = await stderrOf(`
      // Node 24.0's own text (24.3 and 22.18 no longer print it).
      process.emitWarning("Type Stripping is an experimental feature and might change at any time", "ExperimentalWarning");
      // A TypeScript file loaded as bin/portcullis.js loads the sources: the warning, where this Node has it.
      await import(${JSON.stringify(TYPESCRIPT_MODULE)});
      process.emitWarning("Type Stripping is an experimental feature, said a library", "DeprecationWarning");
    `);
    expect(stderr).not.toContain("ExperimentalWarning: Type Stripping");
    expect(stderr).toContain("DeprecationWarning: Type Stripping is an experimental feature, said a library");
  });
});
