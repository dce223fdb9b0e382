/**
 * The eID login's machine (flows/eid.flow.ts) run by the runtime's step function, with its actors as
 * the runtime binds them (src/runtime/eid-flow-actors.ts) over a stand-in broker: the first step stops
 * at awaitingCallback with the upstream URL and the pending values, the stored snapshot goes on with
 * the callback's query, and the broker's refusals end in `failed` while anything else fails the step.
 */
import { describe, expect, it } from "vitest";
import { eidFlow, type EidFlowContext, type EidFlowInput, type UpstreamCallbackEvent } from "../../flows/eid.flow.ts";
import { EidError } from "../../src/eid/eid-error.ts";
import type { EidBroker } from "../../src/eid/eid-broker.ts";
import type { EidPending } from "../../src/eid/eid-upstream.ts";
import { eidFlowActors } from "../../src/runtime/eid-flow-actors.ts";
import { runFlowStep } from "../../src/runtime/flow-step.ts";
import { runnable, type RunnableFlow } from "../../src/runtime/login-flows.ts";

const CALLBACK = "https://op.example/eID/callback";
const INPUT: EidFlowInput = { upstream: "national-eid", options: { prompt: "login", uiLocales: "en" } };

/** A broker that records what it was asked and finishes as `finish` says. */
function standInBroker(finish: (query: URLSearchParams, pending: EidPending) => Promise<{ sub: string }>) {
  const asked: unknown[] = [];
  const broker: Pick<EidBroker, "begin" | "finish"> = {
    begin: async (upstream, redirectUri, options) => {
      asked.push({ begin: { upstream, redirectUri, options } });
      const pending = { upstream, redirectUri, state: "st-1", nonce: "n-1", codeVerifier: "v-1" };
      return { url: new URL(`https://eid.example/authorize?state=${pending.state}`), pending };
    },
    finish: async (callback, pending) => {
      asked.push({ finish: { query: String(callback), pending } });
      return { ...(await finish(callback as URLSearchParams, pending)), claims: {} };
    },
  };
  return { broker, asked };
}

const flowOver = (broker: Pick<EidBroker, "begin" | "finish">): RunnableFlow =>
  runnable("login_type.eID", eidFlow, new Map(), () => eidFlow, eidFlowActors(broker, CALLBACK));
const callback = (query: string): UpstreamCallbackEvent => ({ type: "UPSTREAM_CALLBACK", query });

describe("the eID flow", () => {
  it("begins at the upstream and waits for its callback, keeping the upstream URL and the pending values", async () => {
    const { broker, asked } = standInBroker(async () => ({ sub: "eid:CZ-1" }));
    const first = await runFlowStep(flowOver(broker), { input: INPUT });
    expect(first.snapshot.value).toBe("awaitingCallback");
    expect(asked).toEqual([{ begin: { upstream: "national-eid", redirectUri: CALLBACK, options: INPUT.options } }]);
    expect((first.snapshot.context as EidFlowContext).redirect).toEqual({
      url: "https://eid.example/authorize?state=st-1",
      pending: { upstream: "national-eid", redirectUri: CALLBACK, state: "st-1", nonce: "n-1", codeVerifier: "v-1" },
    });
  });

  it("finishes the stored login with the callback's query and outputs the account with the method eid; the code is not kept", async () => {
    const { broker, asked } = standInBroker(async () => ({ sub: "eid:CZ-1" }));
    const flow = flowOver(broker);
    const first = await runFlowStep(flow, { input: INPUT });
    const stored = JSON.parse(JSON.stringify(first.persisted));
    const done = await runFlowStep(flow, { input: INPUT, persisted: stored, event: callback("code=secret-code&state=st-1") });
    expect([done.snapshot.value, done.snapshot.status]).toEqual(["authenticated", "done"]);
    expect(done.snapshot.output).toEqual({ sub: "eid:CZ-1", methods: ["eid"] });
    expect(asked.at(-1)).toEqual({
      finish: { query: "code=secret-code&state=st-1", pending: (first.snapshot.context as EidFlowContext).redirect!.pending },
    });
    expect(JSON.stringify(done.persisted)).not.toContain("secret-code");
  });

  it("ends failed with the broker's refusal (what the client is told, and its cause for the log)", async () => {
    const refusal = new EidError("access_denied", "national-eid", "the eID login was not completed (access_denied)", {
      cause: new Error("upstream said no"),
    });
    const { broker } = standInBroker(async () => Promise.reject(refusal));
    const flow = flowOver(broker);
    const first = await runFlowStep(flow, { input: INPUT });
    const done = await runFlowStep(flow, { input: INPUT, persisted: first.persisted, event: callback("error=access_denied&state=st-1") });
    expect([done.snapshot.value, done.snapshot.status]).toEqual(["failed", "done"]);
    expect(done.snapshot.output).toEqual({
      refused: {
        failure: "access_denied",
        upstream: "national-eid",
        error: "access_denied",
        description: "the eID login was not completed (access_denied)",
        cause: "upstream said no",
      },
    });
  });

  it("fails the step with anything else the broker throws (a store outage, a bug), and with an upstream that cannot be begun", async () => {
    const outage = new Error("store down");
    const { broker } = standInBroker(async () => Promise.reject(outage));
    const flow = flowOver(broker);
    const first = await runFlowStep(flow, { input: INPUT });
    await expect(runFlowStep(flow, { input: INPUT, persisted: first.persisted, event: callback("code=c&state=st-1") })).rejects.toBe(
      outage,
    );

    const down = new EidError("unavailable", "national-eid", "the eID provider is not reachable, try again later");
    const unreachable = flowOver({ ...broker, begin: async () => Promise.reject(down) });
    await expect(runFlowStep(unreachable, { input: INPUT })).rejects.toBe(down);
  });

  it("ignores a callback sent before the upstream was begun: the first step still stops waiting for one", async () => {
    const { broker } = standInBroker(async () => ({ sub: "eid:CZ-1" }));
    const flow = flowOver(broker);
    const first = await runFlowStep(flow, { input: INPUT, event: callback("code=early") });
    expect(first.snapshot.value).toBe("awaitingCallback");
  });
});
