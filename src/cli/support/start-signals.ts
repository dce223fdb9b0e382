/**
 * The signals `portcullis start` answers, listened for from its first moment. Node's default for each
 * is to end the process at once, so until a handler exists a supervisor's SIGTERM or an operator's
 * SIGHUP that lands during start-up would kill it with nothing cleaned up (no pid file removed, no
 * requests finished). Listening first closes that window:
 * - the first SIGINT or SIGTERM resolves `shutdown`; one that arrived while starting stops the provider
 *   as soon as it has started;
 * - a second SIGINT means "now" (exit 130); later SIGTERMs change nothing (a worker may get one from its
 *   primary and one from a supervisor that signals the whole group, and its stop is bounded anyway);
 * - SIGHUP calls the hangup handler; one that arrived before a handler was set is delivered when it is
 *   (the configuration may have changed after it was loaded).
 * The listeners stay until exit: removed, a late signal would kill the process during its graceful stop.
 */
export interface StartSignals {
  /** The first SIGINT or SIGTERM. */
  shutdown: Promise<NodeJS.Signals>;
  /** Each SIGHUP from now on calls `handler`, and a SIGHUP that came before calls it once at once. */
  onHangup(handler: () => void): void;
}

export function listenForStartSignals(): StartSignals {
  let stopping = false;
  let hangup: (() => void) | undefined;
  let missedHangup = false;
  const shutdown = new Promise<NodeJS.Signals>((resolve) => {
    const onStop = (signal: NodeJS.Signals) => {
      if (!stopping) {
        stopping = true;
        resolve(signal);
      } else if (signal === "SIGINT") process.exit(130);
    };
    process.on("SIGINT", onStop);
    process.on("SIGTERM", onStop);
  });
  process.on("SIGHUP", () => {
    if (hangup) hangup();
    else missedHangup = true;
  });
  return {
    shutdown,
    onHangup(handler) {
      hangup = handler;
      if (missedHangup) {
        missedHangup = false;
        handler();
      }
    },
  };
}
