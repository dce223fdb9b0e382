import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import type { FactorPlugin } from "../../../src/plugin-contract/factor-plugin.ts";
import { verifyUserPassword } from "../../../src/users/verify-user-password.ts";
import { passwordMachine, type PasswordVerdict } from "./password.machine.ts";

/** Trusted password (trusted class): the embedded directory's scrypt passwords, with per-account attempt limits. */
const passwordPlugin: FactorPlugin = {
  id: "password",
  class: "trusted",
  identifiesUser: true,
  amr: "password",
  configSchema: { type: "object", additionalProperties: false, properties: {} },
  machine: passwordMachine,
  actors: ({ services, attempts }) => ({
    checkPassword: fromPromise<PasswordVerdict, { username: string; password: string }>(async ({ input }) => ({
      sub: await verifyUserPassword(services, attempts, input.username, input.password),
    })),
  }),
  // Passwords live in the directory (users.yaml): the page says so and offers no action.
  account: { setUpBy: "directory" },
  views: { password: readFileSync(new URL("./password.hbs", import.meta.url), "utf8") },
};

export default passwordPlugin;
