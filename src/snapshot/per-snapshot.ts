import type { PolicySnapshot } from "./policy-snapshot.ts";

/**
 * A value derived from a policy snapshot (the discovery document, the diagrams), built on first use and
 * kept while that snapshot lives: after a reload the next request gets one built from the new snapshot,
 * and requests still holding the old snapshot keep the old value.
 */
export function perSnapshot<T>(build: (policy: PolicySnapshot) => T): (policy: PolicySnapshot) => T {
  const built = new WeakMap<PolicySnapshot, T>();
  return (policy) => {
    if (!built.has(policy)) built.set(policy, build(policy));
    return built.get(policy)!;
  };
}
