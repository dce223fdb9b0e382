import { mkdirSync, openSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import type { DestinationStream } from "pino";
import { bufferedDestination } from "../logging/buffered-destination.ts";
import { isoTimestamp } from "../time/iso-timestamp.ts";
import type { ProviderFile } from "../config/types.generated.ts";
import { ListenedAuditTrail } from "./audit-trail.ts";
import type { AuditEvent } from "./audit-event.ts";

/** The trail with its stream, so that a stopping provider can write what is still buffered. */
export class StreamedAuditTrail extends ListenedAuditTrail {
  readonly close: () => Promise<void>;

  constructor(write: (event: AuditEvent) => void, close: () => Promise<void> = async () => {}) {
    super(write);
    this.close = close;
  }
}

/**
 * The audit trail provider.yaml's `audit` section asks for: its own stream (a pino destination) of JSON
 * lines `{"time":"<ISO 8601>","type":...,<facts>}` — no level, pid or host: an auditor's line is the act
 * and its time. Kept apart from the operational log so it can be retained, shipped and read on its own
 * (`portcullis audit trace`). `destination` (tests): a stream to write to instead. `onError` hears a
 * failed write (a full disk): reported, never thrown — an audit sink that fails must not fail a login.
 */
export function createAuditTrail(
  settings: ProviderFile["audit"],
  dataDir: string,
  destination?: DestinationStream,
  onError: (error: Error) => void = () => {},
): StreamedAuditTrail {
  if (!settings.enabled) return new StreamedAuditTrail(() => {});
  const stream = destination ?? openDestination(settings.destination, dataDir);
  (stream as { on?: (event: "error", listener: (error: Error) => void) => void }).on?.("error", onError);
  // Asynchronous: a synchronous flush (flushSync) could overtake a write in flight and swap two lines.
  // A stream of the caller's (a test's) is only flushed; one opened here also stops batching.
  const close = () =>
    new Promise<void>((resolve) => {
      const sonic = stream as { flush?: (done: () => void) => void; end?: (done: () => void) => void };
      const finish = destination ? sonic.flush?.bind(sonic) : sonic.end?.bind(sonic);
      if (finish === undefined) return resolve();
      try {
        finish(() => resolve());
      } catch {
        resolve(); // nothing written yet
      }
    });
  return new StreamedAuditTrail((event) => stream.write(auditLine(event)), close);
}

/** `{"time":"<ISO 8601>",<the event's fields>}` and a newline; the time spliced in rather than spread into a copy of the event. */
export function auditLine(event: AuditEvent): string {
  return `{"time":"${isoTimestamp()}",${JSON.stringify(event).slice(1)}\n`;
}

/**
 * stdout, stderr, or the file (relative to data_dir), appended to; writes are not waited for. The file is
 * opened here, at start: a path the provider cannot write is the operator's to fix, said in one line.
 * Every token request records an event, so lines go out in batches like the operational log's
 * (src/logging/buffered-destination.ts: flushed when the provider closes; a SIGKILL can lose the last
 * 200 ms of events).
 */
function openDestination(destination: string, dataDir: string): DestinationStream {
  if (destination === "stdout") return bufferedDestination(1);
  if (destination === "stderr") return bufferedDestination(2);
  const path = auditFilePath(destination, dataDir);
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, "a", 0o640);
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new ConfigError([
      { file: "provider.yaml", path: "audit.destination", message: `cannot open the audit file ${path} (${code})`, value: destination },
    ]);
  }
  return bufferedDestination(fd);
}

/** Where a file destination is: absolute, or under data_dir (both relative to the working directory). */
export function auditFilePath(destination: string, dataDir: string): string {
  return isAbsolute(destination) ? destination : resolve(dataDir, destination);
}
