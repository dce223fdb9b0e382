import type { Interaction } from "./interaction.ts";
import type { FlowCatalog, RunnableFlow } from "./login-flows.ts";
import type { RetainedFlows } from "./retained-flows.ts";

/**
 * The flow an interaction runs: the version it started on (its flowHash) when this node still keeps it
 * after a reload (retained-flows.ts), else the current one — whose hash then differs, so the stored
 * snapshot is not its to restore. Undefined when the configuration no longer has the flow.
 */
export function interactionFlow(
  current: Pick<FlowCatalog, "get">,
  retained: Pick<RetainedFlows, "find">,
  interaction: Interaction,
): RunnableFlow | undefined {
  const flow = current.get(interaction.flowId);
  if (flow?.hash === interaction.flowHash || interaction.snapshot === undefined) return flow;
  return retained.find(interaction.flowId, interaction.flowHash) ?? flow;
}
