import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { assign, createMachine, fromPromise, setup } from "xstate";
import { createLoginFlow } from "../../flows/login.flow.ts";
import { discoverMachines, pluginFolders } from "../../src/diagrams/discover-machines.ts";
import { catalogMachines, type DrawableMachine } from "../../src/diagrams/machine-catalog.ts";
import type { FactorPlugin } from "../../src/plugin-contract/factor-plugin.ts";
import { METHODS_DIR } from "../../src/runtime/method-plugins.ts";
import { analyseMachinePaths } from "./machine-paths.ts";

/**
 * Every machine that can run — the flows, the built-in machines, every factor plugin's machine and
 * enrollment machine (found by folder, so a new plugin is covered without a change here), the test
 * plugin that the project does not ship, and the login flow built with every plugin at once — must:
 * reach each of its final states, reach each of its states, take each of its transitions (every
 * candidate of every event, eventless and delayed ones included: a transition no path takes is a
 * branch no test can reach), have a way out of every state, and be able to finish from every
 * configuration it can reach (no trap). See machine-paths.ts for how the paths are found without
 * running the machines' actors or real guards.
 */
const discovered = await discoverMachines();
const pinPlugin = (await import("../plugins/pin/index.ts")).default as unknown as FactorPlugin;
const testPluginMachines = catalogMachines({ loginFlows: [], plugins: [["pin", pinPlugin]] }).filter(
  (m) => m.kind === "method" || m.kind === "method_enrollment",
);
const allPlugins = pluginFolders(METHODS_DIR);
const everyMethodLoginFlow: DrawableMachine = {
  name: "login (every plugin)",
  kind: "login",
  subject: "every",
  machine: createLoginFlow(
    await Promise.all(allPlugins.map(async (id) => ({ id, identifiesUser: (await importPlugin(id)).identifiesUser }))),
  ),
};

async function importPlugin(id: string): Promise<FactorPlugin> {
  return ((await import(pathToFileURL(join(METHODS_DIR, id, "index.ts")).href)) as { default: FactorPlugin }).default;
}

const machines = [...discovered, ...testPluginMachines, everyMethodLoginFlow];

describe("the machine list", () => {
  it("has the flows, the built-in machines and every plugin folder", () => {
    const names = discovered.map((m) => m.name);
    const builtIn = names.indexOf("identify-user");
    expect(names[0]).toBe("login");
    expect(names.slice(builtIn, builtIn + 3)).toEqual(["identify-user", "channel-choice", "enrollment"]);
    expect(names.slice(1, builtIn).every((name) => name.startsWith("login-"))).toBe(true);
    expect(names).toContain("method-password");
    // Every login type of the demo's login.yaml has its flow drawn and path-tested: those that run methods, and eID's.
    for (const type of ["2fa", "mfa", "mfaacmeotp", "mfascan", "mfatotp", "mfafido", "mfamail", "mfasms", "mfaacmeapp", "myvendor", "eid"])
      expect(names).toContain(`login-${type}`);
    for (const id of allPlugins) expect(names).toContain(`method-${id}`);
    expect(testPluginMachines.map((m) => m.name)).toEqual(["method-pin", "method-pin-enrollment"]);
  });
});

describe.each(machines.map((m) => [m.name, m] as const))("%s", (_name, { machine }) => {
  const report = analyseMachinePaths(machine);

  it("reaches every final state", () => {
    expect(
      machine.root.type === "parallel" || Object.values(machine.root.states).some((s) => s.type === "final"),
      "the machine has a final state",
    ).toBe(true);
    expect(report.unreachableFinals).toEqual([]);
  });

  it("reaches every state", () => {
    expect(report.unreachableStates).toEqual([]);
  });

  it("takes every transition", () => {
    expect(report.untakenTransitions).toEqual([]);
  });

  it("has a way out of every state that is not final", () => {
    expect(report.noWayOut).toEqual([]);
  });

  it("can finish from every configuration it reaches", () => {
    expect(report.reached).toBeGreaterThan(1);
    expect(report.deadEnds).toEqual([]);
  });
});

describe("the path analysis", () => {
  const placeholder = fromPromise<{ ok: boolean }>(async () => {
    throw new Error("placeholder actor ran");
  });

  it("finds an unreachable final state and a state nothing leads to", () => {
    const machine = createMachine({
      id: "m",
      initial: "a",
      states: {
        a: { on: { GO: "done" } },
        orphan: { on: { GO: "passing" } },
        passing: { always: "lost" },
        done: { type: "final" },
        lost: { type: "final" },
      },
    });
    const report = analyseMachinePaths(machine);
    expect(report.unreachableFinals).toEqual(["m.lost"]);
    expect(report.unreachableStates).toEqual(["m.orphan", "m.passing", "m.lost"]);
  });

  it("finds a transition no path takes: a candidate after an unguarded one, and the transitions of a state nothing leads to", () => {
    const machine = setup({ guards: { isLate: () => true } }).createMachine({
      id: "m",
      initial: "a",
      states: {
        a: { on: { GO: [{ target: "b" }, { guard: "isLate", target: "late" }], STAY: {} }, always: { guard: "isLate", target: "b" } },
        b: { on: { GO: "done" } },
        late: { type: "final" },
        orphan: { on: { GO: "done" } },
        done: { type: "final" },
      },
    });
    // The targetless STAY and the guarded always are taken; GO's second candidate never is.
    expect(analyseMachinePaths(machine).untakenTransitions).toEqual(["m.a GO #2 [isLate] → m.late", "m.orphan GO #1 → m.done"]);
  });

  it("finds a state without a way out, and a trap of two states that only lead to each other", () => {
    const machine = setup({ guards: { isWrong: () => false } }).createMachine({
      id: "m",
      initial: "a",
      states: {
        a: { on: { NEXT: [{ guard: "isWrong", target: "stuck" }, { target: "loopA" }], FINISH: "done" } },
        stuck: { on: { RETRY: { actions: assign({}) } } },
        loopA: { on: { NEXT: "loopB" } },
        loopB: { on: { NEXT: "loopA" } },
        done: { type: "final" },
      },
    });
    const report = analyseMachinePaths(machine);
    expect(report.noWayOut).toEqual(["m.stuck"]);
    // Reached through the guarded branch although the real guard always says no.
    expect(report.deadEnds.sort()).toEqual([
      '{"value":"loopA","status":"active"}',
      '{"value":"loopB","status":"active"}',
      '{"value":"stuck","status":"active"}',
    ]);
  });

  it("takes every branch of a parameterised guard, and counts a child that moves on as a way out", () => {
    const machine = setup({ guards: { isChoice: (_args, params: { pick: string }) => params.pick === "never" } }).createMachine({
      id: "m",
      initial: "choosing",
      states: {
        choosing: {
          on: {
            CHOOSE: [
              { guard: { type: "isChoice", params: { pick: "left" } }, target: "left" },
              { guard: { type: "isChoice", params: { pick: "right" } }, target: "right" },
            ],
          },
        },
        left: { initial: "inner", states: { inner: { on: { OUT: "#m.done" } } } },
        right: { type: "final" },
        done: { type: "final" },
      },
    });
    const report = analyseMachinePaths(machine);
    expect(report).toMatchObject({ unreachableFinals: [], unreachableStates: [], noWayOut: [], deadEnds: [], untakenTransitions: [] });
  });

  it("follows always guards at start-up, invoke onDone and onError, and delayed transitions, without running actors", () => {
    const machine = setup({ actors: { work: placeholder }, guards: { hasHint: () => false, isOk: () => false } }).createMachine({
      id: "m",
      initial: "starting",
      states: {
        starting: { always: [{ guard: "hasHint", target: "working" }, { target: "waiting" }] },
        waiting: { after: { 60000: "working" } },
        working: {
          invoke: {
            src: "work",
            input: ({ event }) => ({ code: (event as unknown as { code: string }).code.trim() }),
            onDone: [{ guard: "isOk", target: "done" }, { target: "waiting" }],
            onError: "failed",
          },
        },
        failed: { type: "final" },
        done: { type: "final" },
      },
    });
    const report = analyseMachinePaths(machine);
    expect(report).toMatchObject({ unreachableFinals: [], unreachableStates: [], noWayOut: [], deadEnds: [] });
  });
});
