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

/** The scope of an entry point that begins now: it takes it once and passes it on. */
export function takeScope(infra: Infra): Scope {
  return { infra, policy: infra.policies.current() };
}

/** The one scope of each request code reached without being handed its scope. */
const byRequest = new WeakMap<IncomingMessage, Scope>();

/**
 * The scope of a request, for the code that is handed the request but not its scope — an extension's
 * routes (ExtensionContext.policy) and what the HTTP layer does for them (src/http/extension-http.ts):
 * the first call takes it, every later call for the same request (Express and node:http share the
 * object) gets the same one back, so no part of the request sees another snapshot than the rest.
 * Entry points that pass their scope on use takeScope, which remembers nothing.
 */
export function requestScope(infra: Infra, req: IncomingMessage): Scope {
  let scope = byRequest.get(req);
  if (scope === undefined) {
    scope = takeScope(infra);
    byRequest.set(req, scope);
  }
  return scope;
}
