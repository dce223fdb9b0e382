/**
 * The two-factor and second-factor login flows over stand-in methods: which groups they offer, in which
 * order, that a second factor must prove the first factor's user, and that a step-up asks only for the
 * missing class. The stand-ins pass with whatever user the PASS event names.
 */
import { describe, expect, it } from "vitest";
import { assign, setup, type AnyStateMachine } from "xstate";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
import type { FlowMethod, LoginFlowInput } from "../../flows/login-flow-setup.ts";
import { createSecondFactorFlow } from "../../flows/second-factor.flow.ts";
import { createTwoFactorFlow } from "../../flows/two-factor.flow.ts";
import { runFlowStep, type FlowEvent, type StepResult } from "../../src/runtime/flow-step.ts";
import type { RunnableFlow } from "../../src/runtime/login-flows.ts";

/** A method that passes on PASS with the user the event names (a method that verifies a known user ignores it and passes that user). */
function standIn(identifiesUser: boolean): AnyStateMachine {
  return setup({
    types: { context: {} as { sub?: string }, input: {} as { sub?: string }, events: {} as { type: "PASS"; sub?: string } },
  }).createMachine({
    context: ({ input }) => ({ sub: input.sub }),
    initial: "waiting",
    states: {
      waiting: {
        meta: { view: "form" },
        on: { PASS: { target: "passed", actions: assign({ sub: ({ context, event }) => (identifiesUser ? event.sub : context.sub) }) } },
      },
      passed: { type: "final" },
    },
    output: ({ context }) => ({ sub: context.sub! }),
  });
}

/** The identify step: the login hint names the user (alice → E1, anyone else → a decoy). */
const identify = setup({ types: { input: {} as { loginHint?: string }, context: {} as { loginHint?: string } } }).createMachine({
  context: ({ input }) => ({ loginHint: input.loginHint }),
  initial: "done",
  states: { done: { type: "final" } },
  output: ({ context }) => ({ sub: context.loginHint === "alice" ? "E1" : "decoy" }),
});

const METHODS: FlowMethod[] = [
  { id: "qrcode", identifiesUser: true, class: "trusted" },
  { id: "password", identifiesUser: true, class: "trusted" },
  { id: "totp", identifiesUser: false, class: "untrusted" },
  { id: "face", identifiesUser: true, class: "untrusted" },
];

function runnable(machine: AnyStateMachine): RunnableFlow {
  const actors = { [IDENTIFY_USER]: identify, ...Object.fromEntries(METHODS.map((m) => [m.id, standIn(m.identifiesUser)])) };
  return { id: "test", machine: machine.provide({ actors }), hash: "h", methods: new Map() };
}

/** Runs a flow through a list of events, one step each, persisting between steps as the runtime does. */
async function walk(flow: RunnableFlow, input: LoginFlowInput, events: FlowEvent[]): Promise<StepResult> {
  let step = await runFlowStep(flow, { input });
  for (const event of events) step = await runFlowStep(flow, { input, persisted: JSON.parse(JSON.stringify(step.persisted)), event });
  return step;
}

const where = (step: StepResult) => JSON.stringify(step.snapshot.value);

describe("two-factor flow", () => {
  const flow = runnable(createTwoFactorFlow(METHODS));

  it("offers every method first, then only the other class, and ends with both methods in order", async () => {
    expect(where(await walk(flow, {}, []))).toBe('{"firstFactor":"qrcode"}');
    const afterFirst = await walk(flow, {}, [
      { type: "CHOOSE_METHOD", method: "password" },
      { type: "PASS", sub: "E1" },
    ]);
    expect(where(afterFirst)).toBe('{"untrustedFactor":"totp"}');
    const done = await walk(flow, {}, [{ type: "CHOOSE_METHOD", method: "password" }, { type: "PASS", sub: "E1" }, { type: "PASS" }]);
    expect(done.snapshot.status).toBe("done");
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["password", "totp"] });
  });

  it("takes an untrusted method first and then asks for a trusted one", async () => {
    const step = await walk(flow, { loginHint: "alice" }, [{ type: "CHOOSE_METHOD", method: "totp" }, { type: "PASS" }]);
    expect(where(step)).toBe('{"trustedFactor":"qrcode"}');
    const done = await walk(flow, { loginHint: "alice" }, [
      { type: "CHOOSE_METHOD", method: "totp" },
      { type: "PASS" },
      { type: "PASS", sub: "E1" },
    ]);
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["totp", "qrcode"] });
  });

  it("counts nothing of a second factor passed by another user, and lets the user start that factor again", async () => {
    const events: FlowEvent[] = [
      { type: "CHOOSE_METHOD", method: "password" },
      { type: "PASS", sub: "E1" },
      { type: "CHOOSE_METHOD", method: "face" },
      { type: "PASS", sub: "E2" },
    ];
    const step = await walk(flow, {}, events);
    expect(where(step)).toBe('"otherUser"');
    expect(step.snapshot.context).toMatchObject({ sub: "E1", methods: ["password"], missingClasses: ["untrusted"] });
    expect(where(await walk(flow, {}, [...events, { type: "START_OVER" }]))).toBe('{"untrustedFactor":"totp"}');
  });

  it("steps up a session: starts with its user and only the missing class", async () => {
    const input = { sub: "E1", missingClasses: ["untrusted" as const] };
    expect(where(await walk(flow, input, []))).toBe('{"untrustedFactor":"totp"}');
    const done = await walk(flow, input, [{ type: "PASS" }]);
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["totp"] });
  });

  it("cannot be built without a method of each class", () => {
    expect(() => createTwoFactorFlow(METHODS.filter((m) => m.class === "trusted"))).toThrow(/needs a untrusted method/);
  });
});

describe("second-factor flow", () => {
  const flow = runnable(createSecondFactorFlow(METHODS.filter((m) => m.id !== "password")));

  it("identifies the user from login_hint and verifies that user with one method", async () => {
    expect(where(await walk(flow, { loginHint: "alice" }, []))).toBe('{"verifying":"qrcode"}');
    const done = await walk(flow, { loginHint: "alice" }, [{ type: "CHOOSE_METHOD", method: "totp" }, { type: "PASS" }]);
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["totp"] });
  });

  it("refuses a scan by someone else than the hinted user", async () => {
    const step = await walk(flow, { loginHint: "alice" }, [{ type: "PASS", sub: "E2" }]);
    expect(where(step)).toBe('"otherUser"');
    expect(step.snapshot.status).toBe("active");
    const done = await walk(flow, { loginHint: "alice" }, [
      { type: "PASS", sub: "E2" },
      { type: "START_OVER" },
      { type: "PASS", sub: "E1" },
    ]);
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["qrcode"] });
  });
});

describe("the app's evidence (LoginFlowInput.app)", () => {
  /** A stand-in that keeps the `app` it was given and outputs evidence as the qrcode method does. */
  const witness = setup({
    types: { context: {} as { app?: unknown }, input: {} as { app?: unknown }, events: {} as { type: "PASS" } },
  }).createMachine({
    context: ({ input }) => ({ app: input.app }),
    initial: "waiting",
    states: { waiting: { meta: { view: "form" }, on: { PASS: "passed" } }, passed: { type: "final" } },
    output: () => ({ sub: "E1", gps: { lat: 1, lnt: 2, time: 3 } }),
  });
  const flow = runnable(createSecondFactorFlow(METHODS.filter((m) => m.id === "qrcode")));
  const withWitness: RunnableFlow = { ...flow, machine: flow.machine.provide({ actors: { qrcode: witness } }) };

  it("reaches every method as MethodInput.app, and the method's evidence is kept by method id", async () => {
    const app = { gps: true, faceid: false };
    const waiting = await walk(withWitness, { loginHint: "alice", app }, []);
    expect(waiting.method?.snapshot.context).toEqual({ app });
    const done = await walk(withWitness, { loginHint: "alice", app }, [{ type: "PASS" }]);
    expect(done.snapshot.output).toEqual({ sub: "E1", methods: ["qrcode"], evidence: { qrcode: { gps: { lat: 1, lnt: 2, time: 3 } } } });
  });

  it("passes no app when the login wants none", async () => {
    expect((await walk(withWitness, { loginHint: "alice" }, [])).method?.snapshot.context).toEqual({ app: undefined });
  });
});
