import { pino, type Logger, type DestinationStream } from "pino";

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
  // Asynchronous stdout: while one write is in flight, later lines are appended to a buffer and go out
  // together, so a busy provider makes one write per batch instead of one syscall per line (measured at
  // ~10% of a token request). pino flushes the buffer synchronously when the process exits.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
