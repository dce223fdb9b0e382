import { Client, escapeFilter } from "ldapts";
import type { DirectoryJob } from "./load-protocol.ts";

/**
 * One check of the directory as a login with a cold cache makes it (src/users/ldap/): the person found by
 * a search under the base with the filter, for the mapping's attributes, on a connection bound as the
 * service account, then a bind as the entry found with their password on a second connection. Shared by
 * the directory load generator (workers/directory-load.ts) and the preflight, so what is checked before
 * the load is exactly what runs under it.
 */

/** What a check needs to know of the directory. */
export type DirectoryTarget = Pick<
  DirectoryJob,
  "url" | "serviceDn" | "servicePassword" | "base" | "filter" | "loginAttribute" | "attributes"
>;

/** A check whose answer was not a login's: no entry, or several. (A refused bind is ldapts' InvalidCredentialsError.) */
export class UnexpectedAnswer extends Error {}

/** A virtual user's two connections: one searching as the service account, one binding as people. */
export interface DirectoryConnections {
  service: Client;
  person: Client;
  /** Whether `service` is bound as the service account (a new connection is not). */
  bound: boolean;
}

/** As the provider's operation_timeout would cut a check short. */
const TIMEOUT_MS = 5_000;

export function openConnections(target: DirectoryTarget): DirectoryConnections {
  const open = () => new Client({ url: target.url, timeout: TIMEOUT_MS, connectTimeout: TIMEOUT_MS });
  return { service: open(), person: open(), bound: false };
}

export async function closeConnections(connections: DirectoryConnections): Promise<void> {
  await Promise.all([connections.service.unbind(), connections.person.unbind()].map((done) => done.catch(() => undefined)));
}

/** One search and one bind for `person`; throws when either does not answer as a login expects. */
export async function checkPerson(
  target: DirectoryTarget,
  connections: DirectoryConnections,
  person: { username: string; password: string },
): Promise<void> {
  if (!connections.bound) {
    await connections.service.bind(target.serviceDn, target.servicePassword);
    connections.bound = true;
  }
  const { searchEntries } = await connections.service.search(target.base, {
    scope: "sub",
    filter: `(&${target.filter}${escapeFilter`(${target.loginAttribute}=${person.username})`})`,
    attributes: target.attributes,
    sizeLimit: 2,
  });
  if (searchEntries.length !== 1) throw new UnexpectedAnswer(`${searchEntries.length} entries for ${person.username}`);
  await connections.person.bind(searchEntries[0]!.dn, person.password);
}
