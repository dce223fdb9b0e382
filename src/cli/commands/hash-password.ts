import { hashPassword } from "../../crypto/password-hash.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { readPassword } from "../support/read-password.ts";

/** `portcullis hash-password`: the scrypt PHC string for users.yaml `password_hash`. */
export const hashPasswordCommand: Command = {
  name: "hash-password",
  summary: "print the scrypt hash of a password read from stdin (not echoed at a terminal)",
  options: {
    password: {
      type: "string",
      valueName: "X",
      description: "take the password from the command line (scripts only: it lands in shell history)",
    },
  },
  async run({ values, stdin, stdout, stderr }) {
    let password: string;
    if (typeof values.password === "string") {
      stderr.write("warning: --password puts the password in your shell history and the process list; prefer stdin\n");
      password = values.password;
    } else {
      password = await readPassword(stdin, stderr, "Password: ");
      if (stdin.isTTY && password !== (await readPassword(stdin, stderr, "Repeat password: "))) {
        throw new CliError("the passwords do not match");
      }
    }
    if (password === "") throw new CliError("the password is empty");
    stdout.write(`${await hashPassword(password)}\n`);
    return 0;
  },
};
