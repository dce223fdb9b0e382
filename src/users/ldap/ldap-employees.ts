import { randomBytes } from "node:crypto";
import { escapeFilter, SizeLimitExceededError, type Entry } from "ldapts";
import type { Logger } from "pino";
import type { Clock } from "../../time/clock.ts";
import type { Employee, EmployeeSource } from "../employee-source.ts";
import { employeeOf, requestedAttributes, type DirectoryEmployee } from "./directory-entry.ts";
import { LdapConnections } from "./ldap-connections.ts";
import { LookupCache } from "./lookup-cache.ts";
import type { LdapSettings } from "./ldap-settings.ts";

/** The longest login name searched for; anything longer names nobody (AD's userPrincipalName allows 1024, but no one types that). */
const MAX_USERNAME_LENGTH = 256;
/** A name or sub with a control character (NUL, a line break, ...) names nobody: no directory holds one. */
const hasControlCharacter = (text: string): boolean => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const AMBIGUOUS: readonly Entry[] = [{ dn: "" }, { dn: "" }];

/**
 * The employees of an LDAP directory (directory.yaml `type: ldap`): found by a search as the service
 * account under `users.base` with `users.filter`, mapped to claims by `claims`/`roles`/`disabled`
 * (directory-entry.ts), and checked by a bind as the person (the provider never reads a password hash).
 * Answers are kept for `cache_ttl`; a lookup the cache cannot answer while the directory is down throws
 * DirectoryUnavailableError (docs/directory.md says what keeps working then).
 */
export class LdapEmployees implements EmployeeSource {
  private readonly settings: LdapSettings;
  private readonly connections: LdapConnections;
  private readonly cache: LookupCache<DirectoryEmployee>;
  /** The DN each employee was read from (recorded when it is made): a password check binds as it. */
  private readonly dns = new WeakMap<Employee, string>();
  private readonly attributes: string[];
  /** A DN under the people's base that names nobody: a password check for no one binds as it, at the cost of a real check. */
  private readonly decoyDn: string;
  private readonly logger: Logger | undefined;

  constructor(settings: LdapSettings, clock: Clock, logger?: Logger) {
    this.settings = settings;
    this.logger = logger;
    this.connections = new LdapConnections(settings, logger);
    this.cache = new LookupCache(clock, settings.cacheTtlMs);
    this.attributes = requestedAttributes(settings.config);
    this.decoyDn = `cn=portcullis-decoy-${randomBytes(8).toString("hex")},${settings.config.users.base}`;
  }

  async findByUsername(username: string): Promise<Employee | undefined> {
    if (username.length === 0 || username.length > MAX_USERNAME_LENGTH || hasControlCharacter(username)) return undefined;
    const found = await this.cache.get(`name:${username.toLowerCase()}`, () =>
      this.search(this.settings.config.users.login_attribute, username),
    );
    return found?.employee;
  }

  async findBySub(sub: string): Promise<Employee | undefined> {
    if (sub.length === 0 || sub.length > 64 || hasControlCharacter(sub)) return undefined;
    const found = await this.cache.get(`sub:${sub}`, () => this.search(this.settings.config.users.sub_attribute, sub));
    return found?.employee;
  }

  async checkPassword(employee: Employee | undefined, password: string): Promise<boolean> {
    const dn = employee === undefined ? undefined : this.dns.get(employee);
    // An empty password is an unauthenticated bind (RFC 4513 §5.1.2), which many directories answer with
    // success: it must never reach the directory as a password.
    if (password.length === 0) return false;
    const bound = await this.connections.bindsAs(dn ?? this.decoyDn, password);
    return dn !== undefined && bound;
  }

  reachable(): Promise<void> {
    return this.connections.reachable(this.settings.config.users.base);
  }

  /** Closes the directory's connections (the provider is stopping). */
  close(): Promise<void> {
    return this.connections.close();
  }

  /** The person whose `attribute` is `value` under the filter; undefined for none, and for two (an ambiguous name logs in as nobody). */
  private async search(attribute: string, value: string): Promise<DirectoryEmployee | undefined> {
    const { base, filter } = this.settings.config.users;
    const entries = await this.connections.asService((client) =>
      client
        .search(base, {
          scope: "sub",
          filter: `(&${filter}${escapeFilter`(${attribute}=${value})`})`,
          attributes: this.attributes,
          sizeLimit: 2,
        })
        .then(({ searchEntries }): readonly Entry[] => searchEntries)
        // More than the limit of two: ambiguous, as two would be.
        .catch((error: unknown) => (error instanceof SizeLimitExceededError ? AMBIGUOUS : Promise.reject(error))),
    );
    if (entries.length !== 1) {
      if (entries.length > 1)
        this.logger?.warn({ attribute }, "directory: a login name or sub matches several people; none of them can log in by it");
      return undefined;
    }
    const found = employeeOf(entries[0]!, this.settings.config);
    if (found !== undefined) this.dns.set(found.employee, found.dn);
    // Found by name: also the answer by sub, which every later request of the login asks for.
    if (found !== undefined && attribute !== this.settings.config.users.sub_attribute) this.cache.put(`sub:${found.employee.sub}`, found);
    return found;
  }
}
