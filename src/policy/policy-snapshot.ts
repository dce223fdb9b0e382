import type { ClientRegistry } from "../oauth/client-registry.ts";
import type { ScopeRegistry } from "../scopes/scope-registry.ts";
import type { LoadedMethod } from "../runtime/loaded-methods.ts";
import type { FlowCatalog } from "../runtime/login-flows.ts";
import type { LoginPolicy } from "../login-policy/login-policy.ts";

/**
 * Everything built from the policy files (clients.yaml, scopes.yaml, login.yaml): the registered
 * clients and scopes, the factor methods bound to this provider, the runnable flows and the login
 * policy the login plan reads. Immutable once built. A request reads `provider.policy` once and keeps
 * that snapshot to its end, so that a reload (which builds a new snapshot and swaps it) never shows a
 * request half of the old policy and half of the new.
 */
export interface PolicySnapshot {
  readonly clients: ClientRegistry;
  readonly scopes: ScopeRegistry;
  /** The factor methods configured in login.yaml, bound to this provider. */
  readonly methods: ReadonlyMap<string, LoadedMethod>;
  /** The login flows (default, each login type's, those plans ask for) and the enrollment flows by id, plugins wired in. */
  readonly flows: FlowCatalog;
  /** The login types and method classes planLogin reads. */
  readonly login: LoginPolicy;
}
