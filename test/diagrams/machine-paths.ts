/**
 * Path analysis of a machine with `xstate/graph`, generic enough that a new plugin's machines are
 * covered without a line of test code:
 *
 * - Events are derived from the machine: every event type any state handles (its transition keys,
 *   which include `xstate.done.actor.<id>`, `xstate.error.actor.<id>` and `xstate.after.…`).
 *   Their payload is a stand-in that answers any field (`"sample"`; `output` and `error` likewise),
 *   so actions that read a form field or an actor's output run.
 * - Guards are oracles: every named guard is replaced (machine.provide) by one that passes only
 *   when the event names it — `isX`, or `isX(params)` for a parameterised guard with fixed params —
 *   and each event is sent in variants that pass none, each one of its guards, and with the
 *   `always` guards too. So every guarded branch is explored, whatever data the real guard wants.
 * - States are compared by value only (not context), so counters cannot make the space infinite.
 * - Traversal uses xstate/graph's mock actor scope: invoked actors are created but never started,
 *   so the plugins' placeholder actors (which throw) never run.
 * - Transitions are covered too: the same traversal, over a mock scope whose actor system reports
 *   each microstep's transitions (xstate's `@xstate.microstep` inspection event), says which
 *   transitions some path takes; every other one of the definition is reported by name.
 */
import {
  createEmptyActor,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  type EventObject,
} from "xstate";
import { getShortestPaths, getStateNodes, toDirectedGraph, type DirectedGraphNode } from "xstate/graph";

/** The event (or machine input) field that lists the guards the oracle lets pass. */
const PICKED = "__pathTestPassingGuards";
/** Safety net: no machine of ours comes near it; a runaway traversal fails instead of hanging. */
const LIMIT = 20_000;

export interface PathReport {
  /** Final states that no path reaches (node ids). */
  unreachableFinals: string[];
  /** States that no path reaches (node ids; history pseudo-states aside). */
  unreachableStates: string[];
  /** Non-final states with no transition that leads out of them — own, a parent's, or a child's (node ids). */
  noWayOut: string[];
  /** Reachable configurations from which the machine can never finish (state values as JSON). */
  deadEnds: string[];
  /** Transitions that no path takes (transitionName: `<state id> <event> #<candidate> [guards] → <targets>`). */
  untakenTransitions: string[];
  /** How many configurations were reached (a sanity check for the tests). */
  reached: number;
}

export function analyseMachinePaths(original: AnyStateMachine): PathReport {
  const machine = withGuardOracles(original);
  const nodes = getStateNodes(machine.root);
  const events = sampleEvents(machine, nodes);
  const serializeState = (snapshot: AnyMachineSnapshot) => JSON.stringify({ value: snapshot.value, status: snapshot.status });
  const alwaysPicks = pickSets(alwaysGuardKeys(nodes));

  // Every configuration reachable from the start; the start itself is tried with each set of
  // `always` guards passing, since eventless transitions at start-up see only the input.
  const reached = new Map<string, AnyMachineSnapshot>();
  for (const picks of alwaysPicks) {
    for (const path of getShortestPaths(machine, { events, serializeState, input: standIn({ [PICKED]: picks }), limit: LIMIT })) {
      reached.set(serializeState(path.state), path.state);
    }
  }

  const active = (snapshot: AnyMachineSnapshot, node: AnyStateNode) => snapshot.matches(stateValueOf(node.path) as never);
  const resting = new Set(nodes.filter((node) => [...reached.values()].some((snapshot) => active(snapshot, node))));
  const passedThrough = transientStatesEntered(machine, nodes, resting);
  const isReached = (node: AnyStateNode) => resting.has(node) || passedThrough.has(node);
  const deadEnds: string[] = [];
  for (const [key, snapshot] of reached) {
    if (snapshot.status !== "active") continue;
    const ways = getShortestPaths(machine, {
      events,
      serializeState,
      fromState: snapshot,
      toState: (s) => s.status === "done",
      limit: LIMIT,
    });
    if (ways.length === 0) deadEnds.push(key);
  }
  const taken = takenTransitions(
    machine,
    events,
    alwaysPicks.map((picks) => standIn({ [PICKED]: picks })),
    serializeState,
  );
  return {
    unreachableFinals: nodes.filter((n) => n.type === "final" && !isReached(n)).map((n) => n.id),
    unreachableStates: nodes.filter((n) => n.type !== "history" && !isReached(n)).map((n) => n.id),
    noWayOut: statesWithoutWayOut(machine),
    deadEnds,
    untakenTransitions: [...transitionNames(machine)].filter(([transition]) => !taken.has(transition)).map(([, name]) => name),
    reached: reached.size,
  };
}

/**
 * The transitions some path takes: a breadth-first walk over the same configurations as the path
 * search (from each start, every sample event), with a mock actor scope like xstate/graph's whose
 * actor system hears each microstep's transitions (eventless ones and raised events' included).
 */
function takenTransitions(
  machine: AnyStateMachine,
  events: readonly EventObject[],
  inputs: readonly unknown[],
  serializeState: (s: AnyMachineSnapshot) => string,
): Set<AnyTransitionDefinition> {
  const actor = createEmptyActor();
  const taken = new Set<AnyTransitionDefinition>();
  actor.system.inspect((inspected) => {
    if (inspected.type === "@xstate.microstep")
      for (const transition of (inspected as { _transitions: AnyTransitionDefinition[] })._transitions) taken.add(transition);
  });
  // Actors are created but never started (defer does nothing), actions are not executed.
  const scope = {
    self: actor,
    logger: () => {},
    id: "",
    sessionId: "path-test",
    defer: () => {},
    system: actor.system,
    stopChild: () => {},
    emit: () => {},
    actionExecutor: () => {},
  } as unknown as AnyActorScope;
  const seen = new Set<string>();
  const queue: AnyMachineSnapshot[] = [];
  const visit = (snapshot: AnyMachineSnapshot) => {
    const key = serializeState(snapshot);
    if (seen.has(key) || seen.size >= LIMIT) return;
    seen.add(key);
    queue.push(snapshot);
  };
  for (const input of inputs) visit(machine.getInitialSnapshot(scope, input));
  for (let snapshot = queue.shift(); snapshot !== undefined; snapshot = queue.shift()) {
    if (snapshot.status !== "active") continue;
    for (const event of events) visit(machine.transition(snapshot, event, scope));
  }
  return taken;
}

/** Every transition of the definition (each candidate of each event, eventless and delayed ones too), by a readable name. */
function transitionNames(machine: AnyStateMachine): Map<AnyTransitionDefinition, string> {
  const names = new Map<AnyTransitionDefinition, string>();
  for (const node of [machine.root, ...getStateNodes(machine.root)]) {
    const byEvent: [string, readonly AnyTransitionDefinition[]][] = [...node.transitions, ["always", node.always ?? []]];
    for (const [type, candidates] of byEvent) {
      candidates.forEach((transition, index) => {
        const guards = guardKeys(transition.guard);
        const targets = (transition.target ?? []).map((target: AnyStateNode) => target.id).join(", ") || "(stays)";
        names.set(transition, `${node.id} ${type} #${index + 1}${guards.length > 0 ? ` [${guards.join(", ")}]` : ""} → ${targets}`);
      });
    }
  }
  return names;
}

/**
 * A transient state — one whose `always` has an unguarded candidate — is left within the step that
 * enters it, so no resting configuration shows it. It counts as reached when a reached state has a
 * transition to it, or it starts a level whose parent is reached (or is the machine).
 */
function transientStatesEntered(
  machine: AnyStateMachine,
  nodes: readonly AnyStateNode[],
  resting: ReadonlySet<AnyStateNode>,
): Set<AnyStateNode> {
  const transient = nodes.filter((node) => (node.always ?? []).some((t) => t.guard === undefined));
  const entered = new Set<AnyStateNode>();
  const reached = (node: AnyStateNode) => node === machine.root || resting.has(node) || entered.has(node);
  const leadsTo = (from: AnyStateNode, to: AnyStateNode) =>
    [...from.transitions.values(), from.always ?? []].some((candidates) => candidates.some((t) => t.target?.includes(to)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const node of transient) {
      if (entered.has(node)) continue;
      const starts = node.parent !== undefined && reached(node.parent) && node.parent.initial?.target?.includes(node);
      if (starts || nodes.some((from) => reached(from) && leadsTo(from, node))) {
        entered.add(node);
        grew = true;
      }
    }
  }
  return entered;
}

/**
 * Static check on the graph of the definition (toDirectedGraph, plus `always`): a non-final state
 * has a way out when a transition it responds to — its own, an ancestor's, or one inside it (a
 * child that can move on, an invoke's onDone/onError, a delayed one) — targets a state outside it.
 */
function statesWithoutWayOut(machine: AnyStateMachine): string[] {
  const graph = toDirectedGraph(machine);
  const flat: DirectedGraphNode[] = [];
  const visit = (node: DirectedGraphNode) => {
    flat.push(node);
    node.children.forEach(visit);
  };
  visit(graph);
  const targetsOf = new Map<AnyStateNode, AnyStateNode[]>();
  for (const node of flat) {
    const always = (node.stateNode.always ?? []).flatMap((t) => t.target ?? []);
    // A targetless transition (toDirectedGraph draws it to its own state) changes context only.
    const edges = node.edges.filter((edge) => edge.transition.target?.length).map((edge) => edge.target);
    targetsOf.set(node.stateNode, [...edges, ...always]);
  }
  const inside = (node: AnyStateNode, root: AnyStateNode): boolean =>
    node === root || (node.parent !== undefined && inside(node.parent, root));
  const stuck: string[] = [];
  for (const { stateNode } of flat) {
    if (stateNode === machine.root || stateNode.type === "final" || stateNode.type === "history") continue;
    const responders = flat.map((n) => n.stateNode).filter((n) => inside(stateNode, n) || inside(n, stateNode));
    const leaves = responders.some((n) => (targetsOf.get(n) ?? []).some((target) => !inside(target, stateNode)));
    if (!leaves) stuck.push(stateNode.id);
  }
  return stuck;
}

/** The machine with every named guard answered by the event's list of passing guards. */
function withGuardOracles(machine: AnyStateMachine): AnyStateMachine {
  const names = Object.keys((machine.implementations.guards ?? {}) as Record<string, unknown>);
  const oracle = (name: string) => (args: { event: EventObject }, params: unknown) => {
    const event = args.event as EventObject & { [PICKED]?: string[]; input?: { [PICKED]?: string[] } };
    const picked = event[PICKED] ?? event.input?.[PICKED] ?? [];
    return picked.includes(name) || picked.includes(guardKey(name, params));
  };
  return machine.provide({ guards: Object.fromEntries(names.map((name) => [name, oracle(name)])) });
}

function guardKey(name: string, params: unknown): string {
  return isPlainObject(params) ? `${name}(${stableJson(params)})` : name;
}

/** The oracle keys a guard definition can pass with: its name, or name and fixed params; operands of and/or/not. */
function guardKeys(guard: unknown): string[] {
  if (typeof guard === "string") return [guard];
  if (typeof guard === "function") return ((guard as { guards?: unknown[] }).guards ?? []).flatMap(guardKeys);
  if (typeof guard === "object" && guard !== null && typeof (guard as { type?: unknown }).type === "string") {
    const { type, params } = guard as { type: string; params?: unknown };
    return [guardKey(type, params)];
  }
  return [];
}

function alwaysGuardKeys(nodes: readonly AnyStateNode[]): string[] {
  return unique(nodes.flatMap((node) => (node.always ?? []).flatMap((t) => guardKeys(t.guard))));
}

/** None, each one, and all of the given guards. */
function pickSets(keys: readonly string[]): string[][] {
  return uniqueBy([[], ...keys.map((key) => [key]), [...keys]], (set) => JSON.stringify(set));
}

/** For each event type the machine handles: a variant per guard of that event, combined with the always-guard sets. */
function sampleEvents(machine: AnyStateMachine, nodes: readonly AnyStateNode[]): EventObject[] {
  const guardsByType = new Map<string, string[]>();
  for (const node of [machine.root, ...nodes]) {
    for (const [type, transitions] of node.transitions) {
      guardsByType.set(type, unique([...(guardsByType.get(type) ?? []), ...transitions.flatMap((t) => guardKeys(t.guard))]));
    }
  }
  const alwaysSets = pickSets(alwaysGuardKeys(nodes));
  const events: EventObject[] = [];
  for (const [type, guards] of [...guardsByType].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const guard of [undefined, ...guards]) {
      for (const always of alwaysSets)
        events.push(standIn({ type, [PICKED]: unique([...(guard ? [guard] : []), ...always]) }) as EventObject);
    }
  }
  return events;
}

/**
 * An object with the given fields that answers any other string field with "sample" (`output` and
 * `error` with another such object): a form event with every field filled, an actor's output.
 */
function standIn(fields: Record<string, unknown>): Record<string, unknown> {
  const target: Record<string, unknown> = { ...fields };
  return new Proxy(target, {
    get(object, key) {
      if (typeof key !== "string" || key in object || key === "toJSON" || key === "then") return Reflect.get(object, key);
      return key === "output" || key === "error" ? standIn({}) : "sample";
    },
  });
}

/** ["a", "b"] → { a: "b" }; ["a"] → "a": the value to `matches()` a state node by. */
function stateValueOf(path: readonly string[]): unknown {
  return path.length === 1 ? path[0] : { [path[0]!]: stateValueOf(path.slice(1)) };
}

function stableJson(value: unknown): string {
  if (!isPlainObject(value)) return JSON.stringify(value) ?? "undefined";
  return `{${Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
    .join(",")}}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

function unique<T>(list: readonly T[]): T[] {
  return [...new Set(list)];
}

function uniqueBy<T>(list: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of list) if (!seen.has(key(item))) seen.set(key(item), item);
  return [...seen.values()];
}
