import type { ChannelServiceClient } from "./channel-service-client.ts";

export interface WatchedApproval {
  token: string;
  id: string;
  /** Called once with approved or refused, or with undefined when the request expired unanswered. */
  onAnswer(decision: "approved" | "refused" | undefined): Promise<void>;
}

/**
 * Asks the channel service for approval decisions until each is answered (every `intervalMs`), so the
 * site writes the final status even when the phone's page is closed. The channel service does not call
 * back: a site would have to be reachable from it, and the poll costs one small request a second or two.
 * `close()` stops every watch (the site is shutting down).
 */
export class ApprovalWatcher {
  private readonly channel: ChannelServiceClient;
  private readonly intervalMs: number;
  /** Give up after this long (the channel service forgets a request after 10 minutes). */
  private readonly limitMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(channel: ChannelServiceClient, intervalMs = 1500, limitMs = 10 * 60_000) {
    this.channel = channel;
    this.intervalMs = intervalMs;
    this.limitMs = limitMs;
  }

  watch(approval: WatchedApproval): void {
    this.schedule({ ...approval, until: Date.now() + this.limitMs });
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(approval: WatchedApproval & { until: number }): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.check(approval);
    }, this.intervalMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async check(approval: WatchedApproval & { until: number }): Promise<void> {
    let decision: string | undefined;
    try {
      decision = await this.channel.decision(approval.token, approval.id);
    } catch {
      // The service is down for a moment: ask again later, as for a pending request.
      decision = "pending";
    }
    if (decision === "pending" && Date.now() < approval.until) return this.schedule(approval);
    if (this.closed) return;
    await approval
      .onAnswer(decision === "approved" || decision === "refused" ? decision : undefined)
      .catch((error: unknown) => console.error(error));
  }
}
