import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { runCli } from "../../src/cli/run-cli.ts";
import { REPO_ROOT, type DocCommand } from "./doc-blocks.ts";

/**
 * A shell for the docs' commands: bash in the repository's top folder, with `portcullis`, `npx
 * portcullis` and `npm run cli --` running the real CLI's `runCli` inside this test process (a shim
 * posts the arguments to a loopback bridge: the same command table and code as bin/portcullis.js, without
 * a process start with the TypeScript loader per command), `curl` failing on an HTTP error status, and
 * the configuration directory each run names as PORTCULLIS_CONFIG. Nothing else of the machine's
 * environment is passed on.
 */
export interface DocShell {
  /** Runs the commands in one bash, in order, each text rewritten first; the CLI reads `configDir`. */
  run(commands: DocCommand[], options: { rewrite: (text: string) => string; configDir: string }): Promise<CommandResult[]>;
  close(): Promise<void>;
}

export interface CommandResult {
  command: DocCommand;
  /** undefined when the shell stopped before the command finished (an unset variable, say). */
  exitCode: number | undefined;
  stdout: string;
}

/** What bash's stdin holds, for the one command that reads it (hash-password reads its first line). */
const STDIN = "correct horse battery staple\n";

/** `curl`: the machine's curl (test/docs skips the blocks that use it when there is none). */
export async function startDocShell(curl: string | undefined): Promise<DocShell> {
  const bin = mkdtempSync(join(tmpdir(), "portcullis-doc-shell-"));
  const cliEnv: NodeJS.ProcessEnv = {};
  const bridge = await startCliBridge(cliEnv);
  writeShim(bin, "cli-client.mjs", CLI_CLIENT);
  writeShim(bin, "portcullis", `#!/bin/sh\nexec node "$(dirname "$0")/cli-client.mjs" "$@"\n`);
  writeShim(
    bin,
    "npx",
    `#!/bin/sh\n[ "$1" = portcullis ] || { echo "docs test: only npx portcullis runs here, not npx $1" >&2; exit 127; }\nshift\nexec portcullis "$@"\n`,
  );
  writeShim(
    bin,
    "npm",
    `#!/bin/sh\n[ "$1" = run ] && [ "$2" = cli ] || { echo "docs test: only npm run cli runs here" >&2; exit 127; }\nshift 2\n[ "$1" = -- ] && shift\nexec portcullis "$@"\n`,
  );
  if (curl) writeShim(bin, "curl", `#!/bin/sh\nexec ${curl} --fail-with-body --max-time 10 "$@"\n`);
  const env = { PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"), HOME: bin, LANG: "C.UTF-8", DOC_CLI_URL: bridge.url };

  return {
    async run(commands, { rewrite, configDir }) {
      cliEnv.PORTCULLIS_CONFIG = configDir;
      const script = ["set -u -o pipefail", `cd '${REPO_ROOT}'`];
      commands.forEach((command, i) => {
        script.push(`printf '\\n@@doc-command ${i} start\\n'`, rewrite(command.text), `printf '\\n@@doc-command ${i} exit %d\\n' $?`);
      });
      const { stdout, stderr } = await bash(script.join("\n"), env);
      return commands.map((command, i) => {
        const start = stdout.indexOf(`\n@@doc-command ${i} start\n`);
        const exit = new RegExp(`\\n@@doc-command ${i} exit (\\d+)\\n`).exec(stdout);
        if (start === -1 || !exit) return { command, exitCode: undefined, stdout: `(the shell stopped before it finished)\n${stderr}` };
        const text = stdout.slice(start + `\n@@doc-command ${i} start\n`.length, exit.index);
        return { command, exitCode: Number(exit[1]), stdout: text };
      });
    },
    async close() {
      await new Promise((resolve) => bridge.server.close(resolve));
      rmSync(bin, { recursive: true, force: true });
    },
  };
}

function writeShim(dir: string, name: string, content: string) {
  writeFileSync(join(dir, name), content);
  chmodSync(join(dir, name), 0o755);
}

/** The shim's side of the bridge: arguments (and, for hash-password, stdin) out; output and exit code back. */
const CLI_CLIENT = `import { readFileSync } from "node:fs";
const args = process.argv.slice(2);
const stdin = args[0] === "hash-password" ? readFileSync(0, "utf8") : "";
const response = await fetch(process.env.DOC_CLI_URL, { method: "POST", body: JSON.stringify({ args, stdin }) });
const { code, stdout, stderr } = await response.json();
process.stdout.write(stdout);
process.stderr.write(stderr);
process.exitCode = code;
`;

async function startCliBridge(cliEnv: NodeJS.ProcessEnv): Promise<{ server: Server; url: string }> {
  let queue = Promise.resolve();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      // One command at a time, as a shell runs them.
      queue = queue.then(async () => {
        const { args, stdin } = JSON.parse(body) as { args: string[]; stdin: string };
        const out = { stdout: "", stderr: "" };
        const sink = (key: keyof typeof out) => {
          const stream = new PassThrough();
          stream.on("data", (chunk) => (out[key] += chunk));
          return stream;
        };
        let code: number;
        try {
          code = await runCli(args, {
            stdin: Readable.from([stdin]) as unknown as NodeJS.ReadStream,
            stdout: sink("stdout"),
            stderr: sink("stderr"),
            env: { ...cliEnv },
          });
        } catch (error) {
          out.stderr += `${(error as Error).stack}\n`;
          code = 70;
        }
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ code, ...out }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/bash", ["-c", script], { cwd: REPO_ROOT, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
    child.stdin.end(STDIN);
  });
}
