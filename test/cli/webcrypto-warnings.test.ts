import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

const MODULE = new URL("../../bin/webcrypto-warnings.js", import.meta.url).href;

/** Runs `body` in a fresh Node process after bin/portcullis.js's warning setup; resolves to its stderr. */
function stderrOf(body: string): Promise<string> {
  const script = `import { muteWebCryptoProbeWarnings } from ${JSON.stringify(MODULE)};\nmuteWebCryptoProbeWarnings();\n${body}`;
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
});
