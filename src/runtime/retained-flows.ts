import type { Clock } from "../time/clock.ts";
import type { FlowCatalog, RunnableFlow } from "./login-flows.ts";

/**
 * The flow catalogs of the snapshots a reload replaced, each kept for an interaction's lifetime after
 * the swap: an interaction started before a reload finishes on the machine version it started on (its
 * flowHash), not on the new one. A node that never had that version (it started after the reload)
 * finds nothing here and restarts the interaction from the current flow's beginning, as before.
 */
export class RetainedFlows {
  private readonly clock: Clock;
  /** The interaction lifetime: no interaction started before the swap lives longer after it. */
  private readonly keepMs: number;
  private entries: Array<{ catalog: FlowCatalog; until: number }> = [];

  constructor(clock: Clock, keepMs: number) {
    this.clock = clock;
    this.keepMs = keepMs;
  }

  retain(catalog: FlowCatalog): void {
    this.prune();
    this.entries.unshift({ catalog, until: this.clock() + this.keepMs });
  }

  /** The flow `flowId` whose definition hash is `hash`, newest version first; undefined when no kept catalog has it. */
  find(flowId: string, hash: string): RunnableFlow | undefined {
    this.prune();
    for (const { catalog } of this.entries) {
      const flow = catalog.get(flowId);
      if (flow?.hash === hash) return flow;
    }
    return undefined;
  }

  private prune(): void {
    const now = this.clock();
    this.entries = this.entries.filter((entry) => entry.until > now);
  }
}
