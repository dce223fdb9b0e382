import { Enrollments } from "../../enrollments/enrollments.ts";
import { createLogger } from "../../logging/create-logger.ts";
import { createStore } from "../../stores/create-store.ts";
import { systemClock } from "../../time/clock.ts";
import { UserDirectory } from "../../users/user-directory.ts";
import { configuredEmployees } from "../../users/configured-employees.ts";
import { openLdapEmployees } from "../../users/ldap/open-ldap-employees.ts";
import { storeOpenError } from "../support/store-open-error.ts";
import type { Accepted } from "./explain-authorize-request.ts";
import type { LoadedExplainPolicy } from "./load-explain-policy.ts";
import { userReadiness, type UserReadiness } from "./user-readiness.ts";

/**
 * `--user`: opens the configured store only to read the user's enrollments (as `portcullis methods
 * list` does; nothing is written), and closes it. With the embedded store the provider must be
 * stopped first: one process owns its data directory.
 */
export async function readUserReadiness(
  loaded: LoadedExplainPolicy,
  name: string,
  explained: Accepted,
  stderr: NodeJS.WritableStream,
): Promise<UserReadiness> {
  const settings = loaded.config.provider;
  let store;
  try {
    store = await createStore(settings.store.url, { dataDir: settings.data_dir, logger: createLogger("warn", stderr as never) });
  } catch (error) {
    throw storeOpenError(error) ?? error;
  }
  let ldapEmployees;
  try {
    ldapEmployees = openLdapEmployees(loaded.config, systemClock);
    const services = {
      methods: loaded.methods,
      enrollments: new Enrollments(store, systemClock),
      users: new UserDirectory(configuredEmployees(loaded.config, ldapEmployees)),
    };
    return await userReadiness(name, explained, services);
  } catch (error) {
    throw storeOpenError(error) ?? error;
  } finally {
    await ldapEmployees?.close();
    await store.close();
  }
}
