import { type Client, InvalidCredentialsError, ResultCodeError } from "ldapts";
import { newLdapClient } from "./ldap-client.ts";
import type { Logger } from "pino";
import { DirectoryUnavailableError } from "../directory-unavailable-error.ts";
import type { LdapSettings } from "./ldap-settings.ts";

/** One pooled connection; `service` is whether it is bound as the service account right now. */
interface Slot {
  client: Client | undefined;
  service: boolean;
}

/**
 * A bounded pool of LDAP connections (directory.yaml `max_connections`). Each operation leases one
 * connection for itself, so a password check's bind as the user never mixes with a search on the same
 * connection; a request that finds them all busy waits up to `operation_timeout`, then is refused with
 * DirectoryUnavailableError. A connection that failed, timed out or was closed by the server is thrown
 * away and opened again at its next lease, so the pool recovers by itself when the directory returns.
 */
export class LdapConnections {
  private readonly settings: LdapSettings;
  private readonly logger: Logger | undefined;
  private readonly idle: Slot[] = [];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  private closed = false;
  /** False from a failed operation until one succeeds: the directory is known to be down. */
  private healthy = true;

  constructor(settings: LdapSettings, logger?: Logger) {
    this.settings = settings;
    this.logger = logger;
    for (let i = 0; i < settings.maxConnections; i++) this.idle.push({ client: undefined, service: false });
  }

  /** Runs `operation` on a connection bound as the service account. */
  async asService<T>(operation: (client: Client) => Promise<T>): Promise<T> {
    return this.lease(async (slot) => {
      const client = await this.connected(slot);
      if (!slot.service) {
        await this.bindService(client);
        slot.service = true;
      }
      return operation(client);
    });
  }

  /**
   * Whether `password` binds as `dn`: the directory checks the password, the provider never sees a hash.
   * False for a refused bind (wrong password, disabled or unknown entry); DirectoryUnavailableError when
   * the directory could not answer.
   */
  async bindsAs(dn: string, password: string): Promise<boolean> {
    return this.lease(async (slot) => {
      const client = await this.connected(slot);
      // Whatever the outcome, the connection is no longer the service account's.
      slot.service = false;
      try {
        await client.bind(dn, password);
        return true;
      } catch (error) {
        if (error instanceof InvalidCredentialsError) return false;
        throw error;
      }
    });
  }

  /**
   * Resolves when the directory answers: at once while the last operation succeeded, else after a
   * search of `base` itself succeeds; throws DirectoryUnavailableError while it is known to be down.
   */
  async reachable(base: string): Promise<void> {
    if (this.healthy) return;
    await this.asService((client) => client.search(base, { scope: "base", attributes: ["1.1"] }));
  }

  /** Closes every idle connection and refuses further leases; a leased one closes when it comes back. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.idle.splice(0);
    await Promise.all(slots.map((slot) => discard(slot)));
  }

  private async lease<T>(operation: (slot: Slot) => Promise<T>): Promise<T> {
    const slot = await this.acquire();
    try {
      const result = await operation(slot);
      this.healthy = true;
      return result;
    } catch (error) {
      if (!(error instanceof ResultCodeError)) this.healthy = false;
      // A refusal the directory answered (no such entry, a bad filter) leaves the connection usable; anything
      // else (a socket error, a timeout) may have left it half-open: it is replaced at its next use.
      if (!(error instanceof ResultCodeError)) await discard(slot);
      throw unavailable(error, this.logger);
    } finally {
      this.release(slot);
    }
  }

  private acquire(): Promise<Slot> {
    if (this.closed) return Promise.reject(new DirectoryUnavailableError("the provider is stopping"));
    const slot = this.idle.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(handOver), 1);
        reject(new DirectoryUnavailableError(`all ${this.settings.maxConnections} connections stayed busy`));
      }, this.settings.operationTimeoutMs);
      const handOver = (free: Slot) => {
        clearTimeout(timer);
        resolve(free);
      };
      this.waiting.push(handOver);
    });
  }

  private release(slot: Slot): void {
    if (this.closed) {
      void discard(slot);
      return;
    }
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.idle.push(slot);
  }

  /** The slot's client, connected (and upgraded with StartTLS when configured); a dropped one is replaced. */
  private async connected(slot: Slot): Promise<Client> {
    if (slot.client?.isConnected) return slot.client;
    await discard(slot);
    const client = newLdapClient(this.settings);
    slot.client = client;
    // StartTLS first thing: nothing, not even the service account's name, crosses the wire in clear.
    if (this.settings.startTls) await client.startTLS(this.settings.tls);
    return client;
  }

  private async bindService(client: Client): Promise<void> {
    try {
      await client.bind(this.settings.config.bind_dn, this.settings.config.bind_password);
    } catch (error) {
      if (error instanceof InvalidCredentialsError)
        throw new DirectoryUnavailableError("the directory refused the service account's bind (bind_dn, bind_password)", { cause: error });
      throw error;
    }
  }
}

async function discard(slot: Slot): Promise<void> {
  const client = slot.client;
  slot.client = undefined;
  slot.service = false;
  // The server may be gone already: there is nobody to say goodbye to.
  await client?.unbind().catch(() => undefined);
}

/** What a failed operation is for the caller: a DirectoryUnavailableError naming the reason, logged once here. */
function unavailable(error: unknown, logger: Logger | undefined): DirectoryUnavailableError {
  if (error instanceof DirectoryUnavailableError) {
    logger?.warn({ reason: error.message }, "directory unavailable");
    return error;
  }
  const reason =
    error instanceof ResultCodeError
      ? `the directory answered ${error.name} (${error.code})`
      : ((error as Error).message?.split("\n")[0] ?? String(error));
  logger?.warn({ reason }, "directory unavailable");
  return new DirectoryUnavailableError(reason, { cause: error });
}
