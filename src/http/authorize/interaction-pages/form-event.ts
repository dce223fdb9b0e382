import type { FlowEvent } from "../../../runtime/flow-step.ts";
import type { RequestFacts } from "../../../plugin-contract/factor-plugin.ts";

/** Form fields the runtime itself reads; every other field is event data. */
const RESERVED_FIELDS = new Set(["csrf", "event", "type"]);
const EVENT_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

/**
 * The form as an event: `event` names it, other string fields are its data, and the request's facts
 * (RequestFacts) are added by the runtime, replacing any form field of the same name.
 */
export function formEvent(body: Record<string, unknown>, facts: RequestFacts): FlowEvent | undefined {
  const type = body.event;
  if (typeof type !== "string" || !EVENT_NAME.test(type)) return undefined;
  const event: FlowEvent = { type };
  for (const [name, value] of Object.entries(body)) if (!RESERVED_FIELDS.has(name) && typeof value === "string") event[name] = value;
  return { ...event, ...facts };
}
