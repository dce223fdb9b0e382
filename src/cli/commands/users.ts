import { userInfo } from "node:os";
import { takeScope } from "../../infra/scope.ts";
import type { AuditActor } from "../../audit/audit-event.ts";
import { findAccountHolder, listUserAccess } from "../../sessions/user-access.ts";
import { signOutUser } from "../../sessions/sign-out-user.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { openProvider } from "../support/open-provider.ts";
import { storeOpenError } from "../support/store-open-error.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { formatUserAccess, formatUserSignOut } from "../users/format-user-access.ts";
import { CONFIG_OPTION } from "./config-options.ts";

const USAGE = "users sessions USER | users sign-out USER (USER: a login name, or a sub)";

/**
 * `portcullis users sessions|sign-out USER`: an operator's view of what a user holds — SSO sessions
 * (started, last seen, methods, address, clients), refresh-token families, access tokens outside a
 * family — and ending all of it now, on every node: sessions ended with back-channel logout to each
 * client (awaited, each outcome printed) and front-channel logout owed to the browser, families revoked,
 * access tokens denied (src/sessions/sign-out-user.ts; the admin API does the same). USER is a login
 * name, an employee's sub, or an external account's sub. Both are audited with the operating-system
 * account that ran them. With the embedded store the provider must be stopped first (one process owns
 * the data directory) — its sessions end with it anyway —, or use the admin API; with Redis or
 * PostgreSQL it runs alongside.
 */
export const usersCommand: Command = {
  name: "users",
  summary: "sessions or sign-out USER: list what a user holds, or end all of it on every node (operator)",
  positionals: { usage: "sessions|sign-out USER", max: 2 },
  options: {
    ...CONFIG_OPTION,
    json: { type: "boolean", description: "print the answer as JSON (the admin API's document)" },
  },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action, name] = positionals;
    if ((action !== "sessions" && action !== "sign-out") || !name) throw new CliError(`expected ${USAGE}`, { showUsage: true });
    const { configDir } = resolveCliSettings(values, env);
    const infra = await openProvider(configDir, stderr, "sign the user out through the admin API (docs/admin-api.md)");
    if (!infra) return 1;
    try {
      // A command is one entry point: it takes the policy serving now once.
      const { policy } = takeScope(infra);
      const user = await findAccountHolder(policy.users, name);
      if (user === undefined)
        throw new CliError(`no user "${name}": not a login name or sub in the directory, nor an eID or vendor account`);
      const actor: AuditActor = { by: "cli", operator: operatingSystemUser(env) };
      if (action === "sessions") {
        const access = await listUserAccess(infra, user, actor);
        stdout.write(values.json ? `${JSON.stringify(access, null, 2)}\n` : formatUserAccess(access));
        return 0;
      }
      const outcome = await signOutUser(infra, policy, user, actor);
      stdout.write(values.json ? `${JSON.stringify(outcome, null, 2)}\n` : formatUserSignOut(outcome));
      return 0;
    } catch (error) {
      // A store that fails midway: one line; what was ended stays ended, and running the command again finishes the rest.
      throw storeOpenError(error) ?? error;
    } finally {
      await infra.close();
    }
  },
};

/** Who ran the command, for the audit trail: the account of the process, else $USER. */
function operatingSystemUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    // No entry in the password database (a container running under an arbitrary uid).
    return env.USER || "unknown";
  }
}
