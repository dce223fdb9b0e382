import { pino, type Logger, type DestinationStream } from "pino";

/**
 * The provider's logger: JSON lines on `destination` (stdout in batches when the provider runs).
 * Redaction is a safety net only — request logs are built from an allow-list (method, path, status,
 * duration, request id) and never include parameters, bodies or credential headers.
 */
export function createLogger(level: string, destination: DestinationStream): Logger {
  const options = {
    level,
    base: { service: "portcullis" },
    redact: {
      paths: [
        "password",
        "client_secret",
        "token",
        "code",
        "refresh_token",
        "access_token",
        "id_token",
        "secret",
        "*.password",
        "*.token",
        "headers.authorization",
        "headers.cookie",
      ],
      censor: "[redacted]",
    },
  };
  return pino(options, destination);
}
