import { createActor, toPromise, type AnyActorRef, type AnyMachineSnapshot } from "xstate";
import type { RunnableFlow } from "./login-flows.ts";
import { methodOfActor } from "../../flows/first-use-enrollment.ts";

/** The id every flow gives the invoke of its current factor method. */
export const METHOD_ACTOR_ID = "method";

export interface FlowEvent {
  type: string;
  [field: string]: unknown;
}

export interface StepResult {
  snapshot: AnyMachineSnapshot;
  /** The method machine's snapshot when one is running (its login machine, or its enrollment machine in a first-use enrollment). */
  method?: { id: string; snapshot: AnyMachineSnapshot };
  /** What to store: taken after every invoked actor settled. */
  persisted: unknown;
}

/**
 * One request's worth of a flow: restore the actor (or start it), deliver the event to whichever
 * machine accepts it (the flow, else its running method), wait until no invoked actor is running, and
 * persist. An actor that failed (e.g. the store is down) rethrows its error, so nothing half-done is kept.
 */
export async function runFlowStep(
  flow: RunnableFlow,
  options: { input: unknown; persisted?: unknown; event?: FlowEvent },
): Promise<StepResult> {
  const actor = createActor(flow.machine, { input: options.input, snapshot: options.persisted as never });
  // An observer for errors: without one XState reports the failure as an uncaught exception; here it
  // is read from the snapshot and rethrown to the request instead.
  actor.subscribe({ error: () => {} });
  actor.start();
  try {
    if (options.event) deliver(actor, options.event);
    await settle(actor);
    const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
    if (snapshot.status === "error") throw snapshot.error;
    const child = snapshot.children[METHOD_ACTOR_ID] as AnyActorRef | undefined;
    // A method's enrollment machine run inside a login (first-use enrollment) counts as that method.
    const method =
      child && typeof child.src === "string"
        ? { id: methodOfActor(child.src), snapshot: child.getSnapshot() as AnyMachineSnapshot }
        : undefined;
    return { snapshot, method, persisted: actor.getPersistedSnapshot() };
  } finally {
    actor.stop();
  }
}

function deliver(actor: AnyActorRef, event: FlowEvent): void {
  const root = actor.getSnapshot() as AnyMachineSnapshot;
  if (root.can(event)) return actor.send(event);
  const method = root.children[METHOD_ACTOR_ID] as AnyActorRef | undefined;
  if (method && (method.getSnapshot() as AnyMachineSnapshot).can?.(event)) method.send(event);
  // Anything else is a stale or forged form: ignored, the current step is shown again.
}

/** Waits until no promise (or other non-machine) actor runs anywhere in the tree, however many follow one another. */
async function settle(root: AnyActorRef): Promise<void> {
  for (;;) {
    const running = runningActors(root);
    if (running.length === 0) return;
    await Promise.allSettled(running.map((ref) => toPromise(ref)));
    // Let the parents process the done events before looking again.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function runningActors(ref: AnyActorRef): AnyActorRef[] {
  const snapshot = ref.getSnapshot() as { status: string; children?: Record<string, AnyActorRef | undefined>; value?: unknown };
  const found: AnyActorRef[] = [];
  for (const child of Object.values(snapshot.children ?? {})) {
    if (!child) continue;
    const childSnapshot = child.getSnapshot() as { status: string; value?: unknown };
    if (childSnapshot.value !== undefined)
      found.push(...runningActors(child)); // a machine: look inside
    else if (childSnapshot.status === "active") found.push(child);
  }
  return found;
}

/** The view the current state names in `meta.view`: the flow's own, else its running method's. */
export function currentView(result: StepResult): { owner: "flow" | string; view: string } | undefined {
  const own = viewOf(result.snapshot);
  if (own) return { owner: "flow", view: own };
  if (!result.method) return undefined;
  const view = viewOf(result.method.snapshot);
  return view ? { owner: result.method.id, view } : undefined;
}

function viewOf(snapshot: AnyMachineSnapshot): string | undefined {
  for (const meta of Object.values(snapshot.getMeta() as Record<string, { view?: unknown } | undefined>)) {
    if (typeof meta?.view === "string") return meta.view;
  }
  return undefined;
}
