import type { ClientRegistry } from "../oauth/client-registry.ts";
import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import type { FlowCatalog } from "../runtime/login-flows.ts";
import type { LoginPolicy } from "../login-policy/login-policy.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { VendorAccounts } from "../users/vendor-accounts.ts";

/**
 * Everything built from the policy files (clients.yaml, scopes.yaml, users.yaml, login.yaml, …): the
 * configuration itself, the registered clients and scopes, the directory, the factor methods bound to
 * the runnable flows and the login policy the login plan reads. Immutable once built. A
 * request takes it once, in its Scope (src/infra/scope.ts), and keeps that snapshot to its end, so that a reload (src/reload/,
 * which builds a new snapshot and swaps it) never shows a request half of the old policy and half of the new.
 */
export interface PolicySnapshot {
  /** The configuration this snapshot was built from (provider.yaml's part is the one the provider started with). */
  readonly config: LoadedConfig;
  /** The policy's hash: over the configuration files' contents as loaded (src/snapshot/policy-hash.ts). */
  readonly hash: string;
  readonly clients: ClientRegistry;
  readonly scopes: ScopeRegistry;
  /** users.yaml's directory, with the eID and vendor accounts beside it. */
  readonly users: UserDirectory;
  /** MyVendor accounts: alive while their client (of this snapshot) may make vendor logins. */
  readonly vendorAccounts: VendorAccounts;
  /** The login flows (default, each login type's, those plans ask for) and the enrollment flows by id, plugins wired in. */
  readonly flows: FlowCatalog;
  /** The login types and method classes planLogin reads. */
  readonly login: LoginPolicy;
}
