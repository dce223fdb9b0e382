import { fromPromise, type AnyActorLogic } from "xstate";
import {
  BEGIN_UPSTREAM_LOGIN,
  FINISH_UPSTREAM_LOGIN,
  type EidFlowInput,
  type EidRefusal,
  type UpstreamRedirect,
  type UpstreamVerdict,
} from "../../flows/eid.flow.ts";
import type { EidBroker } from "../eid/eid-broker.ts";
import { EidError } from "../eid/eid-error.ts";
import type { EidPending } from "../eid/eid-upstream.ts";

/**
 * The actors of the eID flow (flows/eid.flow.ts), bound to the broker: begin discovers the upstream and
 * makes the authorization URL with state, nonce and PKCE, returning to `callbackUri`; finish completes
 * the login from the callback's query and records the account. The broker's EidError (the user
 * cancelled, a crossed callback, a bad answer, the upstream down) is the flow's `failed` outcome, a
 * verdict; anything else (a store outage, a bug) rejects, and the runtime answers it as any failure.
 */
export function eidFlowActors(broker: Pick<EidBroker, "begin" | "finish">, callbackUri: string): Record<string, AnyActorLogic> {
  return {
    [BEGIN_UPSTREAM_LOGIN]: fromPromise<UpstreamRedirect, EidFlowInput>(async ({ input }) => {
      const { url, pending } = await broker.begin(input.upstream, callbackUri, input.options);
      return { url: url.href, pending };
    }),
    [FINISH_UPSTREAM_LOGIN]: fromPromise<UpstreamVerdict, { query: string; pending: EidPending }>(async ({ input }) => {
      try {
        const account = await broker.finish(new URLSearchParams(input.query), input.pending);
        return { account: { sub: account.sub, ...(account.acr !== undefined && { acr: account.acr }) } };
      } catch (err) {
        if (!(err instanceof EidError)) throw err;
        return { refused: refusalOf(err) };
      }
    }),
  };
}

function refusalOf(err: EidError): EidRefusal {
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return {
    failure: err.failure,
    upstream: err.upstream,
    error: err.error,
    description: err.description,
    ...(cause !== undefined && { cause }),
  };
}
