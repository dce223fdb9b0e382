import { takeScope } from "../../infra/scope.ts";
import { StoreUnavailableError } from "../../stores/store-unavailable-error.ts";
import { CliError } from "../support/cli-error.ts";
import { accountSub } from "../support/account-sub.ts";
import type { Command } from "../support/command.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { openProvider } from "../support/open-provider.ts";

const USAGE =
  "methods list USER | methods reset USER [METHOD] | methods enroll USER METHOD [KEY=VALUE ...] (USER: a user name, or <client_id>:<account> for a vendor account)";

/**
 * `portcullis methods ...`: an operator's view of a user's factor methods, in the store the config
 * names. list shows what the user enrolled; reset removes one enrollment or all (a lost phone, a
 * new TOTP app); enroll records one for the user through the method's plugin (e.g. a TOTP secret to
 * hand over). USER is an employee's user name or a vendor account `<client_id>:<account>` (MyVendor:
 * an operator enrolls its TOTP and hands the otpauth URI to the vendor). With the embedded store the provider must be stopped first (one process owns the
 * data directory); with Redis or PostgreSQL it runs alongside.
 */
export const methodsCommand: Command = {
  name: "methods",
  summary: "list, reset or enroll a user's factor methods (operator)",
  positionals: { usage: "list|reset|enroll USER [METHOD] [KEY=VALUE ...]", max: 12 },
  options: { ...CONFIG_OPTION },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action, username, method, ...pairs] = positionals;
    if (!action || !["list", "reset", "enroll"].includes(action) || !username) throw new CliError(`expected ${USAGE}`, { showUsage: true });
    const { configDir } = resolveCliSettings(values, env);
    const infra = await openProvider(configDir, stderr);
    if (!infra) return 1;
    try {
      // A command is one entry point: it takes the policy serving now once.
      const sub = await accountSub(takeScope(infra).policy, username);
      const enrollable = [...infra.methods]
        .filter(([, m]) => m.plugin.manifest.machines.enrollment || m.plugin.enrollByOperator)
        .map(([id]) => id);
      if (action === "list") {
        const enrolled = new Map((await infra.enrollments.list(sub, enrollable)).map((e) => [e.method, e]));
        for (const id of enrollable) {
          const e = enrolled.get(id);
          stdout.write(
            `${id.padEnd(10)} ${e ? `enrolled ${new Date(e.createdAt).toISOString()}, changed ${new Date(e.updatedAt).toISOString()}` : "-"}\n`,
          );
        }
        return 0;
      }
      if (action === "reset") {
        const targets = method ? [checkedMethod(method, enrollable)] : enrollable;
        for (const id of targets) {
          const removed = await infra.enrollments.remove(id, sub);
          stdout.write(`${id}: ${removed ? "removed" : "was not enrolled"}\n`);
          if (removed) infra.logger.info({ event: "method_reset", sub, method: id }, "factor method reset by an operator");
        }
        return 0;
      }
      const id = checkedMethod(method, enrollable);
      const loaded = infra.methods.get(id)!;
      if (!loaded.plugin.enrollByOperator)
        throw new CliError(`${id} is enrolled by its user on the account page (/account), not by an operator`);
      const options = Object.fromEntries(pairs.map(parsePair));
      try {
        stdout.write(`${await loaded.plugin.enrollByOperator(loaded.context, sub, options)}\n`);
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        throw new CliError(`${id}: ${(error as Error).message}`);
      }
      infra.logger.info({ event: "method_enrolled_by_operator", sub, method: id }, "factor method enrolled by an operator");
      return 0;
    } finally {
      await infra.close();
    }
  },
};

function checkedMethod(method: string | undefined, enrollable: string[]): string {
  if (!method) throw new CliError("name the method");
  if (!enrollable.includes(method))
    throw new CliError(`"${method}" is not a configured method that can be enrolled (${enrollable.join(", ") || "none"})`);
  return method;
}

function parsePair(pair: string): [string, string] {
  const eq = pair.indexOf("=");
  if (eq <= 0) throw new CliError(`expected KEY=VALUE, got ${JSON.stringify(pair)}`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}
