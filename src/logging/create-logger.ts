import { pino, type Logger, type DestinationStream } from "pino";
import { bufferedDestination } from "./buffered-destination.ts";

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
  // Buffered stdout: lines go out in batches instead of one write syscall per line (measured ~20 µs of
  // a ~390 µs token request, docs/performance.md); see buffered-destination.ts for what that costs.
  const stdout = bufferedDestination(1);
  return pino(options, stdout);
}
