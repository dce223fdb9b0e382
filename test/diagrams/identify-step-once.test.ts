/**
 * An auditor reads a login flow's chart once through: the identify step (who is logging in, before a
 * method that verifies a known user) is one state of the flow however many of its methods and groups
 * need it, not one per method and group (issue 26 counted 24 identify edges in the 2FA chart: an
 * identifying state and its two ways out inside each of twelve method states).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AnyStateNode } from "xstate";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
import { discoverMachines } from "../../src/diagrams/discover-machines.ts";
import { mermaidStatechart } from "../../src/diagrams/mermaid-statechart.ts";
import { REPO_ROOT } from "../../scripts/generate-diagrams.ts";

const loginFlows = (await discoverMachines()).filter((m) => m.kind.startsWith("login"));

/** The states of a machine that run the identify step. */
function identifySteps(node: AnyStateNode): AnyStateNode[] {
  const own = node.invoke.some((invoke) => invoke.src === IDENTIFY_USER) ? [node] : [];
  return [...own, ...Object.values(node.states as Record<string, AnyStateNode>).flatMap(identifySteps)];
}

/** In a statechart: the states named `identifying`, and the edges the identify step's end takes. */
const count = (chart: string) => ({
  identifyingStates: chart.match(/^ *state "identifying" as /gm)?.length ?? 0,
  identifyDone: chart.match(/ : done: identify$/gm)?.length ?? 0,
});

describe("the identify step in the login flows' charts", () => {
  it("appears once in the 2FA chart, drawn and committed, though six of its eight methods need it in the first factor", () => {
    const twoFactor = loginFlows.find((m) => m.name === "login-2fa")!;
    expect(identifySteps(twoFactor.machine.root).map((node) => node.path.join("."))).toEqual(["identifying"]);
    expect(count(mermaidStatechart(twoFactor.machine))).toEqual({ identifyingStates: 1, identifyDone: 1 });
    expect(count(readFileSync(join(REPO_ROOT, "docs/diagrams/login-2fa.md"), "utf8"))).toEqual({ identifyingStates: 1, identifyDone: 1 });
  });

  it.each(loginFlows.map((m) => [m.name, m] as const))("appears at most once in %s", (_name, { machine }) => {
    expect(identifySteps(machine.root).length).toBeLessThanOrEqual(1);
    const { identifyingStates, identifyDone } = count(mermaidStatechart(machine));
    expect(identifyingStates).toBeLessThanOrEqual(1);
    expect(identifyDone).toBeLessThanOrEqual(1);
  });
});
