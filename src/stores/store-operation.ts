import type { Logger } from "pino";
import { StoreUnavailableError } from "./store-unavailable-error.ts";

/** What the stores log through. A pino logger satisfies it. */
export type StoreLogger = Pick<Logger, "error" | "warn" | "info">;

/** A logger that drops everything, for stores created without one (tests, tools). */
export const silentStoreLogger: StoreLogger = { error() {}, warn() {}, info() {} };

/**
 * Runs one store operation: bounded in time, every failure turned into StoreUnavailableError and logged.
 * `fn` may be synchronous (the embedded store's Map operations): then no promise is made but the answer.
 */
export type OperationRunner = <R>(op: string, kind: string | undefined, fn: () => R | Promise<R>) => Promise<R>;

/**
 * Told of every store operation when it ends: its name (get, set, take, ...), its record kind, how long it
 * took and whether it failed. Metrics use it (src/metrics/store-metrics.ts); the stores do not know them.
 */
export type OperationObserver = (op: string, kind: string | undefined, ms: number, failed: boolean) => void;

export interface OperationRunnerOptions {
  backend: string;
  observe?: OperationObserver | undefined;
  logger: StoreLogger;
  /** Upper bound for one operation; a backend that hangs (half-open socket, stuck server) must not hang requests. */
  timeoutMs?: number;
  isClosed: () => boolean;
}

export function createOperationRunner(options: OperationRunnerOptions): OperationRunner {
  const { backend, logger, timeoutMs, isClosed, observe } = options;
  const failed = (op: string, kind: string | undefined, started: number, error: unknown): StoreUnavailableError => {
    observe?.(op, kind, performance.now() - started, true);
    if (error instanceof StoreUnavailableError) return error;
    // Never log keys or values: they may be codes or tokens.
    logger.error({ backend, op, kind, error: describeError(error) }, "store operation failed");
    return new StoreUnavailableError(backend, { cause: error });
  };
  // The single choke point of every backend's operations: where their latency and failures are observed.
  return <R>(op: string, kind: string | undefined, fn: () => R | Promise<R>): Promise<R> => {
    if (isClosed()) return Promise.reject(new StoreUnavailableError(backend, { cause: new Error("the store is closed") }));
    const started = observe ? performance.now() : 0;
    let pending: R | Promise<R>;
    try {
      pending = fn();
    } catch (error) {
      return Promise.reject(failed(op, kind, started, error));
    }
    if (!(pending instanceof Promise)) {
      observe?.(op, kind, performance.now() - started, false);
      return Promise.resolve(pending);
    }
    const bounded = timeoutMs === undefined ? pending : withTimeout(pending, timeoutMs);
    return bounded.then(
      (result) => {
        observe?.(op, kind, performance.now() - started, false);
        return result;
      },
      (error: unknown) => {
        throw failed(op, kind, started, error);
      },
    );
  };
}

async function withTimeout<R>(promise: Promise<R>, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A log-safe summary of a backend error. PostgreSQL server errors (those with a `severity`) can quote the
 * offending input in their message, so for them only the SQLSTATE code is kept.
 */
export function describeError(error: unknown): { name: string; code?: string; message?: string } {
  if (!(error instanceof Error)) return { name: typeof error };
  const code = (error as { code?: unknown }).code;
  const summary: { name: string; code?: string; message?: string } = { name: error.name };
  if (typeof code === "string") summary.code = code;
  if (!("severity" in error)) summary.message = error.message || (error instanceof AggregateError ? String(error.errors[0]) : "");
  return summary;
}
