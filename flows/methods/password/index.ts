import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import { passwordMachine, type PasswordVerdict } from "./password.machine.ts";
import { methodManifest, verifyUserPassword, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

/** Trusted password (trusted class): the embedded directory's scrypt passwords, with per-account attempt limits. */
const passwordPlugin: FactorPlugin = {
  manifest: methodManifest({
    id: "password",
    schema: { type: "object", additionalProperties: false, properties: {} },
    machines: { login: passwordMachine },
  }),
  class: "trusted",
  identifiesUser: true,
  amr: "password",
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
