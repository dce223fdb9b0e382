import { createInterface } from "node:readline";
import { CliError } from "./cli-error.ts";

/**
 * Reads a password without it appearing anywhere: at a terminal the input is not echoed (raw mode);
 * from a pipe (`printf %s "$PW" | portcullis hash-password`) the first line is taken.
 */
export async function readPassword(stdin: NodeJS.ReadStream, stderr: NodeJS.WritableStream, prompt: string): Promise<string> {
  return stdin.isTTY ? readHidden(stdin, stderr, prompt) : readFirstLine(stdin);
}

const ENTER = new Set(["\r", "\n", "\u0004"]);
const ERASE = new Set(["\u007f", "\b"]);
const INTERRUPT = "\u0003";

function readHidden(stdin: NodeJS.ReadStream, stderr: NodeJS.WritableStream, prompt: string): Promise<string> {
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const done = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write("\n");
    };
    // Raw mode delivers keystrokes unprocessed, so Enter, Backspace and Ctrl-C are handled here.
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (ENTER.has(char)) {
          done();
          resolve(value);
          return;
        }
        if (char === INTERRUPT) {
          done();
          reject(new CliError("cancelled", { exitCode: 130 }));
          return;
        }
        value = ERASE.has(char) ? Array.from(value).slice(0, -1).join("") : value + char;
      }
    };
    stdin.on("data", onData);
  });
}

async function readFirstLine(stdin: NodeJS.ReadStream): Promise<string> {
  const lines = createInterface({ input: stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return "";
  } finally {
    lines.close();
    // Stop reading: a writer that keeps the pipe open must not keep this process alive.
    stdin.destroy();
  }
}
