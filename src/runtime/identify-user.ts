import { createHash } from "node:crypto";
import { fromPromise } from "xstate";
import { identifyUserMachine } from "../../flows/identify-user.machine.ts";
import type { UserDirectory } from "../users/user-directory.ts";

/**
 * A sub that no user has (subs match ^[A-Za-z0-9._-]+$): what an unknown or disabled user name
 * resolves to, stable per name so the pages that follow behave alike on every try.
 */
export function decoySub(username: string): string {
  return `~unknown:${createHash("sha256").update(username.toLowerCase()).digest("base64url").slice(0, 16)}`;
}

/** The identify-user machine with its findUser actor bound to the directory. */
export function identifyUserRunnable(provider: { readonly users: Pick<UserDirectory, "findByUsername"> }) {
  return identifyUserMachine.provide({
    actors: {
      findUser: fromPromise<{ sub: string }, { username: string }>(async ({ input }) => {
        const user = await provider.users.findByUsername(input.username);
        return { sub: user && !user.disabled ? user.sub : decoySub(input.username) };
      }),
    },
  });
}
