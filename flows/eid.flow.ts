import { assertEvent, assign, fromPromise, setup } from "xstate";
import { EID_METHOD, type EidBeginOptions, type EidFailure, type EidPending } from "../src/plugin-contract/declaration.ts";

/** What the eID flow starts from: the upstream its login type names, and what the client's request asks of it there. */
export interface EidFlowInput {
  /** An id under login.yaml's eid_upstreams. */
  upstream: string;
  /** The client's prompt=login, max_age and language, passed upstream. */
  options: EidBeginOptions;
}

/** Where the browser is sent, and what is kept here until it comes back: the begin actor's output. */
export interface UpstreamRedirect {
  /** The upstream's authorization URL: state, nonce and the PKCE challenge are in it. */
  url: string;
  /** Kept server-side until the callback: never sent to the browser. */
  pending: EidPending;
}

/** Why the upstream leg failed (the broker's EidError): what the client is told, and the cause for the log. */
export interface EidRefusal {
  failure: EidFailure;
  upstream: string;
  /** The OAuth error and description the client's redirect URI gets. */
  error: string;
  description: string;
  /** The upstream's own words or the network failure, for the log only. */
  cause?: string;
}

/** The finish actor's verdict: the account the upstream vouched for and the acr its login counts as here, or why there is none. */
export type UpstreamVerdict = { account: { sub: string; acr?: string } } | { refused: EidRefusal };

/** The event /eID/callback sends into the stored interaction: the upstream's answer, its query string as received. */
export type UpstreamCallbackEvent = { type: "UPSTREAM_CALLBACK"; query: string };

export interface EidFlowContext extends EidFlowInput {
  /** Set once the begin actor is done: where /eID/authorize sends the browser, and what the callback is checked against. */
  redirect?: UpstreamRedirect;
  sub?: string;
  /** What the upstream performed, as this provider's acr (login.yaml eid_upstreams.<id>.acr.performed). */
  acr?: string;
  refusal?: EidRefusal;
}

/** A login flow's output (the method `eid`: its own amr, of no class; the acr the upstream performed), or the upstream's refusal. */
export type EidFlowOutput = { sub: string; methods: string[]; acr?: string } | { refused: EidRefusal };

/** The actor ids the runtime provides (src/runtime/eid-flow-actors.ts). */
export const BEGIN_UPSTREAM_LOGIN = "beginUpstreamLogin";
export const FINISH_UPSTREAM_LOGIN = "finishUpstreamLogin";

/**
 * The eID login (login type `eID`, `flow: eid`): the user logs in at an upstream eID provider and this
 * provider is its OpenID Connect relying party. No page here: `/eID/authorize` runs the first step —
 * the begin actor discovers the upstream and makes state, nonce and PKCE verifier — and sends the
 * browser to the upstream (`awaitingCallback`, stored in the interaction); `/eID/callback` sends the
 * upstream's answer into it as UPSTREAM_CALLBACK, and the finish actor exchanges the code, checks the
 * ID token (and userinfo) and maps and records the account (`mappingAccount`). It ends `authenticated`,
 * or `failed` when the upstream refused or could not be used (the user cancelled, a crossed callback,
 * an answer that failed validation, the upstream down): the runtime answers the client with the
 * refusal's error. An upstream that cannot be reached at the start is an infrastructure failure of
 * the authorize request (no onError: temporarily_unavailable at the client, as for any store outage).
 */
export const eidFlow = setup({
  types: {
    context: {} as EidFlowContext,
    input: {} as EidFlowInput,
    output: {} as EidFlowOutput,
    events: {} as UpstreamCallbackEvent,
  },
  actors: {
    [BEGIN_UPSTREAM_LOGIN]: fromPromise<UpstreamRedirect, EidFlowInput>(async () => {
      throw new Error("beginUpstreamLogin is provided by the runtime");
    }),
    [FINISH_UPSTREAM_LOGIN]: fromPromise<UpstreamVerdict, { query: string; pending: EidPending }>(async () => {
      throw new Error("finishUpstreamLogin is provided by the runtime");
    }),
  },
  guards: {
    isRefused: (_, verdict: UpstreamVerdict) => "refused" in verdict,
  },
  actions: {
    setRedirect: assign((_, redirect: UpstreamRedirect) => ({ redirect })),
    setAccount: assign((_, verdict: UpstreamVerdict) =>
      "account" in verdict ? { sub: verdict.account.sub, ...(verdict.account.acr !== undefined && { acr: verdict.account.acr }) } : {},
    ),
    setRefusal: assign((_, verdict: UpstreamVerdict) => ("refused" in verdict ? { refusal: verdict.refused } : {})),
  },
}).createMachine({
  id: "eid",
  context: ({ input }) => ({ upstream: input.upstream, options: input.options }),
  initial: "redirectingToUpstream",
  states: {
    redirectingToUpstream: {
      invoke: {
        src: BEGIN_UPSTREAM_LOGIN,
        input: ({ context }) => ({ upstream: context.upstream, options: context.options }),
        onDone: { target: "awaitingCallback", actions: { type: "setRedirect", params: ({ event }) => event.output } },
      },
    },
    // The browser is at the upstream; the interaction waits for /eID/callback (found by the state sent upstream).
    awaitingCallback: {
      on: { UPSTREAM_CALLBACK: "mappingAccount" },
    },
    mappingAccount: {
      invoke: {
        src: FINISH_UPSTREAM_LOGIN,
        // The callback's query (its code) travels only in the event and here, never in the context.
        input: ({ context, event }) => {
          assertEvent(event, "UPSTREAM_CALLBACK");
          return { query: event.query, pending: context.redirect!.pending };
        },
        onDone: [
          {
            guard: { type: "isRefused", params: ({ event }) => event.output },
            target: "failed",
            actions: { type: "setRefusal", params: ({ event }) => event.output },
          },
          { target: "authenticated", actions: { type: "setAccount", params: ({ event }) => event.output } },
        ],
      },
    },
    authenticated: { type: "final" },
    failed: { type: "final" },
  },
  output: ({ context }) =>
    context.sub !== undefined
      ? { sub: context.sub, methods: [EID_METHOD], ...(context.acr !== undefined && { acr: context.acr }) }
      : { refused: context.refusal! },
});
