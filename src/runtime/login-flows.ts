import { createHash } from "node:crypto";
import { fromPromise, type AnyActorLogic, type AnyStateMachine } from "xstate";
import { createEnrollmentFlow } from "../../flows/enrollment.flow.ts";
import { CHANNEL_CHOICE_FLOW_ID, channelChoiceFlow } from "../../flows/channel-choice.flow.ts";
import { createLoginTypeFlow, isMethodFlowKind, type MethodFlowKind } from "../../flows/login-type-flow.ts";
import type { FlowMethod } from "../../flows/login-flow-setup.ts";
import type { LoginFile } from "../config/types.generated.ts";
import type { LoadedMethod } from "./loaded-methods.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { Enrollments } from "../enrollments/enrollments.ts";
import { IDENTIFY_USER } from "../../flows/identify-user.machine.ts";
import { ENROLLED_METHODS, enrollmentActorId, type EnrolledMethodsInput } from "../../flows/first-use-enrollment.ts";
import { identifyUserRunnable } from "./identify-user.ts";
import { eidFlow } from "../../flows/eid.flow.ts";
import type { EidBroker } from "../eid/eid-broker.ts";
import type { FlowKind } from "../login-policy/login-policy.ts";
import { paths } from "../http-kit/paths.ts";
import { eidFlowActors } from "./eid-flow-actors.ts";

/**
 * What the runtime's own steps in a login flow use: the directory (identify), the enrollments (first
 * use), and the eID broker with this provider's issuer (the eID flow's upstream round trip returns to
 * `<issuer>/eID/callback`).
 */
export interface FlowServices {
  readonly users: Pick<UserDirectory, "findByUsername">;
  readonly enrollments: Pick<Enrollments, "list">;
  readonly eid: Pick<EidBroker, "begin" | "finish">;
  readonly issuer: string;
}

/** A flow ready to run: its machine with every method machine and actor provided, and its definition hash. */
export interface RunnableFlow {
  id: string;
  machine: AnyStateMachine;
  hash: string;
  /** The methods the flow may invoke, by id (the runtime derives amr and acr from them, and finds their views). */
  methods: ReadonlyMap<string, LoadedMethod>;
  /** A login flow's kind (absent for enrollment and channel choice). */
  kind?: FlowKind;
}

/** The id of a login type's flow over its declared methods. */
export const loginTypeFlowId = (name: string) => `login_type.${name}`;

/** The id of the flow that enrolls a method. */
export const enrollmentFlowId = (methodId: string) => `enroll.${methodId}`;
/** The id of the one-factor flow over login.yaml's default_flow methods. */
export const DEFAULT_FLOW_ID = "default";
/** The id of the flow of a kind over these methods, in this order: what a login plan runs. */
export const planFlowId = (kind: MethodFlowKind, methods: readonly string[]) => `${kind}:${methods.join(",")}`;

/** Flows built on demand for a login plan's method list (fa and acr_values choose and order them): at most this many are kept. */
const MAX_PLANNED_FLOWS = 256;

/**
 * The runnable flows of one policy snapshot: the default login flow, each login type's flow over its
 * declared methods (an eID login type's: the eID flow, which brokers to its upstream), one enrollment
 * flow per method that can be enrolled, and — built on first use and
 * kept — the flow of each method list a login plan asks for. A flow id names its kind and methods, so
 * every node builds the same machine (and hash) for the same id, whoever started the interaction.
 */
export class FlowCatalog {
  private readonly services: FlowServices;
  /** The factor methods the flows wire in. */
  readonly methods: ReadonlyMap<string, LoadedMethod>;
  private readonly named = new Map<string, RunnableFlow>();
  private readonly planned = new Map<string, RunnableFlow>();

  constructor(services: FlowServices, login: LoginFile, methods: ReadonlyMap<string, LoadedMethod>) {
    this.services = services;
    this.methods = methods;
    this.named.set(DEFAULT_FLOW_ID, this.build(DEFAULT_FLOW_ID, "single_factor", login.default_flow.methods));
    this.named.set(
      CHANNEL_CHOICE_FLOW_ID,
      runnable(CHANNEL_CHOICE_FLOW_ID, channelChoiceFlow, new Map(), (m) => m.plugin.manifest.machines.login),
    );
    for (const [name, type] of Object.entries(login.login_types ?? {})) {
      const id = loginTypeFlowId(name);
      if (isMethodFlowKind(type.flow)) this.named.set(id, this.build(id, type.flow, type.methods ?? []));
      else
        this.named.set(id, {
          ...runnable(
            id,
            eidFlow,
            new Map(),
            (m) => m.plugin.manifest.machines.login,
            eidFlowActors(services.eid, `${services.issuer}${paths.eidCallback}`),
          ),
          kind: type.flow,
        });
    }
    for (const [id, method] of methods) {
      if (!method.plugin.manifest.machines.enrollment) continue;
      const flowId = enrollmentFlowId(id);
      this.named.set(
        flowId,
        runnable(flowId, createEnrollmentFlow(id), new Map([[id, method]]), (m) => m.plugin.manifest.machines.enrollment!),
      );
    }
  }

  /** The flow by id, building a planned one on demand; undefined for an id this configuration cannot run. */
  get(id: string): RunnableFlow | undefined {
    const known = this.named.get(id) ?? this.planned.get(id);
    if (known) return known;
    const [kind, list] = splitOnce(id);
    if (list === undefined || !isMethodFlowKind(kind)) return undefined;
    const methods = list.split(",");
    if (methods.some((m) => !this.methods.has(m))) return undefined;
    try {
      return this.remember(this.build(id, kind, methods));
    } catch {
      return undefined; // e.g. a two-factor list without a method of each class: no such flow
    }
  }

  /** The flow a login plan runs: the default flow when the plan offers exactly its methods. */
  forPlan(kind: MethodFlowKind, methods: readonly string[]): RunnableFlow | undefined {
    const fallback = this.named.get(DEFAULT_FLOW_ID)!;
    if (kind === "single_factor" && sameList(methods, [...fallback.methods.keys()])) return fallback;
    return this.get(planFlowId(kind, methods));
  }

  /** The declared flows (default, login types, enrollments), for diagrams: not the ones built on demand. */
  [Symbol.iterator](): IterableIterator<[string, RunnableFlow]> {
    return this.named.entries();
  }

  private build(id: string, kind: MethodFlowKind, methodIds: readonly string[]): RunnableFlow {
    const methods = new Map(methodIds.map((m) => [m, this.methods.get(m)!]));
    return {
      ...runnable(
        id,
        createLoginTypeFlow(kind, toFlowMethods(methods)),
        methods,
        (m) => m.plugin.manifest.machines.login,
        loginBuiltIns(this.services, methods),
      ),
      kind,
    };
  }

  private remember(flow: RunnableFlow): RunnableFlow {
    if (this.planned.size >= MAX_PLANNED_FLOWS) this.planned.delete(this.planned.keys().next().value!);
    this.planned.set(flow.id, flow);
    return flow;
  }
}

function splitOnce(id: string): [string, string | undefined] {
  const at = id.indexOf(":");
  return at < 0 ? [id, undefined] : [id.slice(0, at), id.slice(at + 1)];
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The methods as a flow sees them (flows/login-flow-setup.ts FlowMethod), in their order. */
export function toFlowMethods(methods: ReadonlyMap<string, LoadedMethod>): FlowMethod[] {
  return [...methods].map(([id, m]) => ({
    id,
    identifiesUser: m.plugin.identifiesUser,
    class: m.plugin.class,
    enrollable: m.plugin.manifest.machines.enrollment !== undefined,
  }));
}

/**
 * What a login flow over `methods` invokes besides their login machines: the identify step, the
 * enrolled-methods check and each enrollable method's enrollment machine under its own actor id
 * (flows/first-use-enrollment.ts: a second-factor flow enrolls on first use).
 */
export function loginBuiltIns(services: FlowServices, methods: ReadonlyMap<string, LoadedMethod>): Record<string, AnyActorLogic> {
  const enrollments = [...methods].flatMap(([id, m]) =>
    m.plugin.manifest.machines.enrollment
      ? [[enrollmentActorId(id), m.plugin.manifest.machines.enrollment.provide({ actors: m.actors })] as const]
      : [],
  );
  return {
    [IDENTIFY_USER]: identifyUserRunnable(services),
    [ENROLLED_METHODS]: fromPromise<string[], EnrolledMethodsInput>(async ({ input }) => {
      const enrolled = (await services.enrollments.list(input.sub, input.methods)).map((e) => e.method);
      // A method the user can pass without setting it up (e-mail to the directory's address) counts as set up.
      const usable = await Promise.all(
        input.methods
          .filter((id) => !enrolled.includes(id))
          .map(async (id) => {
            const method = methods.get(id);
            return (await method?.plugin.usableWithoutEnrollment?.(method.context, input.sub)) ? [id] : [];
          }),
      );
      return [...enrolled, ...usable.flat()];
    }),
    ...Object.fromEntries(enrollments),
  };
}

export function runnable(
  id: string,
  flow: AnyStateMachine,
  methods: ReadonlyMap<string, LoadedMethod>,
  machineOf: (m: LoadedMethod) => AnyStateMachine,
  builtIn: Record<string, AnyActorLogic> = {},
): RunnableFlow {
  const actors = {
    ...builtIn,
    ...Object.fromEntries([...methods].map(([methodId, method]) => [methodId, machineOf(method).provide({ actors: method.actors })])),
  };
  const hash = createHash("sha256").update(describe(flow));
  for (const [methodId, method] of methods) hash.update(`\n${methodId}:`).update(describe(machineOf(method)));
  for (const [machineId, machine] of Object.entries(builtIn)) hash.update(`\n${machineId}:`).update(describe(machine));
  return { id, machine: flow.provide({ actors }), hash: hash.digest("base64url").slice(0, 22), methods };
}

/** A stable text of a machine's structure: states, transitions, invokes, guards by name (functions drop out); a promise actor has none. */
function describe(logic: AnyActorLogic): string {
  return JSON.stringify((logic as Partial<AnyStateMachine>).definition ?? null);
}
