import { describe, expect, it } from "vitest";
import { fromPromise } from "xstate";
import { createLoginFlow } from "../../flows/login.flow.ts";
import passwordPlugin from "../../flows/methods/password/index.ts";
import type { RunnableFlow } from "../../src/runtime/login-flows.ts";
import type { LoadedMethod } from "../../src/runtime/loaded-methods.ts";
import { currentView, runFlowStep } from "../../src/runtime/flow-step.ts";

/** The default flow over the real password machine, with its checkPassword actor replaced by a table. */
function flowWith(check: (u: string, p: string) => Promise<string | undefined>): RunnableFlow {
  const method = passwordPlugin.manifest.machines.login.provide({
    actors: {
      checkPassword: fromPromise(async ({ input }: { input: { username: string; password: string } }) => ({
        sub: await check(input.username, input.password),
      })),
    },
  });
  const machine = createLoginFlow([{ id: "password", identifiesUser: true }]).provide({ actors: { password: method } });
  return {
    id: "default",
    machine,
    hash: "h",
    methods: new Map([["password", { plugin: passwordPlugin, amr: "password" } as LoadedMethod]]),
  };
}

const alice = async (u: string, p: string) => (u === "alice" && p === "right" ? "E10001" : undefined);

describe("runFlowStep", () => {
  it("starts on the first method's view with the login hint prefilled", async () => {
    const step = await runFlowStep(flowWith(alice), { input: { loginHint: "alice" } });
    expect(currentView(step)).toEqual({ owner: "password", view: "password" });
    expect(step.method?.snapshot.context).toMatchObject({ username: "alice" });
  });

  it("restores a persisted snapshot, sends the event to the method, and finishes with the flow output", async () => {
    const flow = flowWith(alice);
    const first = await runFlowStep(flow, { input: {} });
    const restored = JSON.parse(JSON.stringify(first.persisted));
    const done = await runFlowStep(flow, {
      input: {},
      persisted: restored,
      event: { type: "SUBMIT_PASSWORD", username: "alice", password: "right" },
    });
    expect(done.snapshot.status).toBe("done");
    expect(done.snapshot.output).toEqual({ sub: "E10001", methods: ["password"] });
  });

  it("keeps the user on the form with an error after a wrong password, and never persists the password", async () => {
    const flow = flowWith(alice);
    const first = await runFlowStep(flow, { input: {} });
    const wrong = await runFlowStep(flow, {
      input: {},
      persisted: first.persisted,
      event: { type: "SUBMIT_PASSWORD", username: "alice", password: "s3cret-guess" },
    });
    expect(currentView(wrong)?.view).toBe("password");
    expect(wrong.method?.snapshot.context).toMatchObject({ username: "alice", errorKey: "method.password.wrong" });
    expect(JSON.stringify(wrong.persisted)).not.toContain("s3cret-guess");
  });

  it("waits for a slow verification before persisting", async () => {
    const slow = async (u: string, p: string) => {
      await new Promise((r) => setTimeout(r, 50));
      return alice(u, p);
    };
    const flow = flowWith(slow);
    const first = await runFlowStep(flow, { input: {} });
    const done = await runFlowStep(flow, {
      input: {},
      persisted: first.persisted,
      event: { type: "SUBMIT_PASSWORD", username: "alice", password: "right" },
    });
    expect(done.snapshot.status).toBe("done");
  });

  it("ignores an event no machine accepts", async () => {
    const flow = flowWith(alice);
    const first = await runFlowStep(flow, { input: {} });
    const same = await runFlowStep(flow, { input: {}, persisted: first.persisted, event: { type: "NOT_AN_EVENT" } });
    expect(currentView(same)?.view).toBe("password");
  });

  it("rethrows an infrastructure failure of an actor instead of treating it as a wrong password", async () => {
    const flow = flowWith(async () => {
      throw new Error("store down");
    });
    const first = await runFlowStep(flow, { input: {} });
    await expect(
      runFlowStep(flow, { input: {}, persisted: first.persisted, event: { type: "SUBMIT_PASSWORD", username: "a", password: "b" } }),
    ).rejects.toThrow("store down");
  });
});
