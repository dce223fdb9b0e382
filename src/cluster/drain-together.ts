import cluster, { type Worker } from "node:cluster";

/**
 * Cluster workers drain their connections only once no worker accepts new ones. A draining worker
 * answers with `Connection: close`, and the client reconnects at once. While another worker still
 * accepts, the primary still listens, accepts that connection and may hand it to a worker closing its
 * listener, which sends it back; a connection the primary holds when the last worker has stopped
 * accepting is closed, resetting the request the client has sent on it. So a stopping worker (whoever
 * signalled it: its primary, or a supervisor signalling the whole process group) stops accepting, tells
 * the primary, and keeps serving its open connections as before until the primary answers that every
 * listening worker has done the same; by then the primary's listener is closed and reconnects are refused.
 */
const STOPPED_ACCEPTING = "portcullis:stopped-accepting";
const DRAIN = "portcullis:drain";

/**
 * A worker waits this long at most for the primary's answer. None comes when it stops alone (the others
 * keep accepting, and serve its clients' reconnects): it drains then anyway.
 */
const ANSWER_WITHIN_MS = 1_000;

/** The worker's half: stops accepting, and resolves when this worker may drain. */
export async function stopAcceptingTogether(stopAccepting: () => void): Promise<void> {
  stopAccepting();
  const send = process.send?.bind(process);
  if (!send) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off("message", onMessage);
      resolve();
    };
    const onMessage = (message: { type?: unknown } | null) => message?.type === DRAIN && done();
    const timer = setTimeout(done, ANSWER_WITHIN_MS);
    process.on("message", onMessage);
    // Sent after the listener's close: node:cluster's own message about it goes first on the same channel,
    // so when the primary reads this one it no longer hands this worker connections.
    send({ type: STOPPED_ACCEPTING }, undefined, undefined, (error) => error && done());
  });
}

/** The primary's half: tells the workers that stopped accepting to drain, once no listening worker accepts. */
export function answerStoppedWorkers(): void {
  const accepting = new Set<number>();
  const waiting = new Map<number, Worker>();
  const release = () => {
    if (accepting.size > 0) return;
    // A worker that exits meanwhile cannot be told: its send fails, and that is all.
    for (const worker of waiting.values()) if (worker.isConnected()) worker.send({ type: DRAIN }, () => {});
    waiting.clear();
  };
  cluster.on("listening", (worker) => accepting.add(worker.id));
  cluster.on("exit", (worker) => {
    accepting.delete(worker.id);
    waiting.delete(worker.id);
    release();
  });
  cluster.on("message", (worker, message: { type?: unknown } | null) => {
    if (message?.type !== STOPPED_ACCEPTING) return;
    accepting.delete(worker.id);
    waiting.set(worker.id, worker);
    release();
  });
}
