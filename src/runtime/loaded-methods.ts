import type { AnyActorLogic } from "xstate";
import { parseDuration } from "../time/duration.ts";
import { AttemptLimiter } from "../security/attempt-limiter.ts";
import type { PluginContext, PluginServices } from "../plugin-contract/factor-plugin.ts";
import type { ConfiguredMethod } from "./method-plugins.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import { recordLockout } from "../audit/record-lockout.ts";

/** A configured method bound to this provider: the context its actors and routes get, and those actors. */
export interface LoadedMethod extends ConfiguredMethod {
  context: PluginContext;
  actors: Record<string, AnyActorLogic>;
}

/**
 * Binds every configured method to the provider: its per-account attempt limiter in the shared store
 * (the method's own `attempts`, else provider.yaml's password_attempts; a lockout goes to the audit trail), its enrollments, and its
 * actors, built once.
 */
export function loadMethods(
  provider: PluginServices & { readonly audit: AuditTrail },
  configured: ReadonlyMap<string, ConfiguredMethod>,
): Map<string, LoadedMethod> {
  const defaults = provider.settings.security.password_attempts;
  const loaded = new Map<string, LoadedMethod>();
  for (const [id, method] of configured) {
    const policy = { ...defaults, ...method.runtime.attempts };
    const context: PluginContext = {
      services: provider,
      settings: method.settings,
      methodId: id,
      attempts: new AttemptLimiter(
        provider.store.namespace("rateLimits"),
        `method:${id}`,
        policy.max_failures,
        parseDuration(policy.window) * 1000,
        recordLockout(provider, id),
      ),
      enrollments: provider.enrollments.forMethod(id),
      routesPath: method.plugin.manifest.routePrefix,
    };
    loaded.set(id, { ...method, context, actors: method.plugin.actors(context) });
  }
  return loaded;
}
