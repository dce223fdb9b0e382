import { pino, type Logger, type DestinationStream } from "pino";

/** How long a log line may wait in the stdout buffer before it is written. */
const FLUSH_EVERY_MS = 200;

/**
 * The provider's logger: JSON lines on stdout. Redaction is a safety net only — request logs are built
 * from an allow-list (method, path, status, duration, request id) and never include parameters,
 * bodies or credential headers.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: "portcullis" },
    redact: {
      paths: ["password", "client_secret", "token", "code", "refresh_token", "access_token", "id_token", "secret", "*.password", "*.token", "headers.authorization", "headers.cookie"],
      censor: "[redacted]",
    },
  };
  if (destination) return pino(options, destination);
  // Buffered stdout: lines go out in batches of up to 8 KiB, or after FLUSH_EVERY_MS when the provider
  // is quiet, instead of one write syscall per line (measured ~20 µs of a ~390 µs token request,
  // docs/performance.md). pino flushes the buffer when the process exits; a SIGKILL can lose the last
  // FLUSH_EVERY_MS of lines.
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 8192 });
  setInterval(() => {
    try {
      stdout.flush();
    } catch {
      // not open yet, or a write is in flight: the next tick flushes
    }
  }, FLUSH_EVERY_MS).unref();
  return pino(options, stdout);
}
