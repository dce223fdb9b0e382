import type { LoadedConfig } from "../config/load-config.ts";
import { ClientRegistry } from "../oauth/client-registry.ts";
import { ScopeRegistry } from "../scopes/scope-registry.ts";
import { buildLoginPolicy } from "../login-policy/build-login-policy.ts";
import type { MethodClass } from "../login-policy/login-policy.ts";
import { UserDirectory } from "../users/user-directory.ts";
import { configuredEmployees } from "../users/configured-employees.ts";
import type { EmployeeSource } from "../users/employee-source.ts";
import { VendorAccounts, vendorLoginTypes } from "../users/vendor-accounts.ts";
import type { EidAccounts } from "../eid/eid-accounts.ts";
import type { PolicySnapshot } from "./policy-snapshot.ts";

/** A snapshot but its methods and flows, which need the provider the methods are bound to. */
export type PolicyParts = Omit<PolicySnapshot, "methods" | "flows">;

/**
 * The parts of a policy snapshot built from the configuration alone: the same code at start and at each
 * reload, so a reloaded policy is exactly what a restart with those files would serve. Throws when a
 * login type cannot be passed (buildLoginPolicy names the problem).
 */
export function buildPolicyParts(
  config: LoadedConfig,
  hash: string,
  methodClasses: ReadonlyMap<string, MethodClass>,
  eidAccounts: EidAccounts,
  ldapEmployees: EmployeeSource | undefined,
): PolicyParts {
  const clients = new ClientRegistry(config.clients.clients, config.provider.lifetimes);
  const vendorAccounts = new VendorAccounts(clients, vendorLoginTypes(config.login));
  return {
    config,
    hash,
    clients,
    scopes: new ScopeRegistry(config.scopes),
    users: new UserDirectory(configuredEmployees(config, ldapEmployees), eidAccounts, vendorAccounts),
    vendorAccounts,
    login: buildLoginPolicy(config.login, methodClasses),
  };
}
