import type { Infra } from "./infra.ts";
import type { PluginServices } from "../plugin-contract/factor-plugin.ts";
import type { FlowServices } from "../runtime/login-flows.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";

/*
 * The services of the factor methods' actors and of the login flows' own steps. Those actors are built
 * once and outlive any request (one login takes several, and an interaction outlives a reload), so the
 * one thing they read from the policy, the directory, is that of the snapshot serving when they run:
 * `users` follows the reloads. Everything else a request reads from the policy comes from its Scope.
 */

type MethodServices = PluginServices & { readonly audit: AuditTrail };

/** One per infrastructure: the trusted app (src/trusted-app/) keeps one instance per services object. */
const built = new WeakMap<Infra, MethodServices>();

/** What a factor method's actors and routes may use of the infrastructure (src/plugin-contract/). */
export function pluginServices(infra: Infra): MethodServices {
  const known = built.get(infra);
  if (known) return known;
  const { issuer, settings, clock, logger, store, secretBox, cookies, sessions, passwordChecks, enrollments, methods, audit } = infra;
  const services: MethodServices = {
    issuer,
    settings,
    clock,
    logger,
    store,
    get users() {
      return infra.policies.current().users;
    },
    secretBox,
    cookies,
    sessions,
    passwordChecks,
    enrollments,
    methods,
    audit,
  };
  built.set(infra, services);
  return services;
}

/** What the login flows' built-in steps use: the directory (identify), the enrollments, the eID broker. */
export function flowServices(infra: Infra): FlowServices {
  return {
    get users() {
      return infra.policies.current().users;
    },
    enrollments: infra.enrollments,
    eid: infra.eid,
    issuer: infra.issuer,
  };
}
