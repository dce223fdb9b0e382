import type { IncomingMessage } from "node:http";
import type { Infra } from "./infra.ts";
import type { PolicySnapshot } from "../snapshot/policy-snapshot.ts";

/**
 * What one request or one command works with: the infrastructure and the policy snapshot that was
 * serving when it began. An entry point takes it once (takeScope) and passes it on, so a reload in the
 * middle never shows a request half of the old policy and half of the new.
 */
export interface Scope {
  readonly infra: Infra;
  readonly policy: PolicySnapshot;
}

/** The scope each request took, for the code that is handed the request but not its scope (an extension's routes). */
const taken = new WeakMap<IncomingMessage, Scope>();

/**
 * The scope of an entry point that begins now. With a request: that request's one scope — the first
 * call takes it, every later call for the same request (Express and node:http share the object) gets
 * the same one back, so no part of a request can see another snapshot than the rest.
 */
export function takeScope(infra: Infra, req?: IncomingMessage): Scope {
  const known = req && taken.get(req);
  if (known) return known;
  const scope = { infra, policy: infra.policies.current() };
  if (req) taken.set(req, scope);
  return scope;
}
