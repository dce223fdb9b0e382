import type { AnyStateMachine } from "xstate";
import { createEnrollmentFlow } from "../../flows/enrollment.flow.ts";
import { identifyUserMachine } from "../../flows/identify-user.machine.ts";
import { channelChoiceFlow } from "../../flows/channel-choice.flow.ts";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";
import type { Extension } from "../plugin-contract/extension.ts";
import type { LoginType } from "../login-policy/login-policy.ts";

/** What a machine is, for its one-line description (`diagrams.kind.<kind>` in views/i18n). */
export type DiagramKind =
  | "login"
  | "login_two_factor"
  | "login_second_factor"
  | "login_eid"
  | "identify"
  | "channel_choice"
  | "enrollment"
  | "method"
  | "method_enrollment"
  | "extension";

/** The kind of login flow a diagram shows: the default (one factor) or a login type's. */
export type LoginFlowKind = Extract<DiagramKind, `login${string}`>;

/** A machine to draw (and to path-test). */
export interface DrawableMachine {
  /** File and URL name: `login`, `identify-user`, `enrollment`, `method-<id>`, `method-<id>-enrollment`. */
  name: string;
  kind: DiagramKind;
  /** The login flow's or the method's id, for the description ("" for the built-in machines). */
  subject: string;
  machine: AnyStateMachine;
  /** A login type's flow: the login type, whose plan facts (login-type-facts.ts) are shown beside the chart. */
  loginType?: LoginType;
}

/** The UI string that describes a machine of this kind; `{subject}` is its flow or method id. */
export const descriptionKey = (kind: DiagramKind) => `diagrams.kind.${kind}`;

/** The machines of a deployment or of the repository, before they are named and ordered. */
export interface MachineSources {
  /** Login flows by flow id (login.yaml's default flow is "default"; a login type's is its name), with their kind (default "login") and a login type's plan. */
  loginFlows: Iterable<readonly [string, AnyStateMachine, LoginFlowKind?, LoginType?]>;
  /** Factor plugins by method id. */
  plugins: Iterable<readonly [string, FactorPlugin]>;
  /** The installed extensions (src/extensions/): each one's machines. */
  extensions?: Iterable<Pick<Extension, "manifest">>;
}

// The machine the enrollment flow draws: its shape is the same for every method, so one diagram,
// with the method's enrollment machine invoked under this placeholder name.
const ENROLLMENT_PLACEHOLDER = "methodEnrollment";

/**
 * Every machine to draw, named and in a fixed order: the login flows (the default first), the built-in identify-user
 * step, the enrollment flow, then each factor method's machine and enrollment machine by method id, then the
 * extensions' machines (`<extension id>-<name>`).
 * Both the docs (discover-machines.ts) and a running provider (deployment-machines.ts) list their
 * machines through here, so a diagram has the same name in docs/diagrams/ and under /diagrams.
 */
export function catalogMachines(sources: MachineSources): DrawableMachine[] {
  const machines: DrawableMachine[] = [];
  // The default flow first, then the login types by name.
  const loginFlows = sortedById(sources.loginFlows).sort(([a], [b]) => Number(b === "default") - Number(a === "default"));
  for (const [flowId, machine, kind, loginType] of loginFlows) {
    machines.push({ name: loginDiagramName(flowId), kind: kind ?? "login", subject: flowId, machine, ...(loginType && { loginType }) });
  }
  machines.push({ name: "identify-user", kind: "identify", subject: "", machine: identifyUserMachine });
  machines.push({ name: "channel-choice", kind: "channel_choice", subject: "", machine: channelChoiceFlow });
  machines.push({ name: "enrollment", kind: "enrollment", subject: "", machine: createEnrollmentFlow(ENROLLMENT_PLACEHOLDER) });
  for (const [methodId, plugin] of sortedById(sources.plugins)) {
    const name = `method-${nameSegment(methodId)}`;
    machines.push({ name, kind: "method", subject: methodId, machine: plugin.manifest.machines.login });
    if (plugin.manifest.machines.enrollment)
      machines.push({
        name: `${name}-enrollment`,
        kind: "method_enrollment",
        subject: methodId,
        machine: plugin.manifest.machines.enrollment,
      });
  }
  for (const { manifest } of sources.extensions ?? []) {
    for (const [name, machine] of Object.entries(manifest.machines))
      machines.push({ name: `${manifest.id}-${nameSegment(name)}`, kind: "extension", subject: `${manifest.id} ${name}`, machine });
  }
  const seen = new Set<string>();
  for (const { name } of machines) {
    if (seen.has(name)) throw new Error(`two machines would share the diagram name "${name}": rename a flow or method id`);
    seen.add(name);
  }
  return machines;
}

/** The diagram name of a login flow: `login` for the default flow, `login-<name>` for a login type's. */
export const loginDiagramName = (flowId: string) => (flowId === "default" ? "login" : `login-${nameSegment(flowId)}`);

/** A name is used as a file name and a URL segment: lowercase letters, digits and `-`. */
export const DIAGRAM_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function nameSegment(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "x"
  );
}

function sortedById<E extends readonly [string, ...unknown[]]>(entries: Iterable<E>): E[] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
