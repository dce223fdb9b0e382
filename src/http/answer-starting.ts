import type { IncomingMessage, ServerResponse } from "node:http";
import { writeJson } from "../http-kit/write-response.ts";

/**
 * The answer while the port is bound but the provider is still loading its store and keys: a 503 a
 * load balancer or client retries (the port is bound first so that a busy port is found before anything
 * is written; see startProvider).
 */
export function answerStarting(_req: IncomingMessage, res: ServerResponse): void {
  writeJson(
    res,
    503,
    { error: "temporarily_unavailable", error_description: "the provider is starting, try again in a moment" },
    { headers: { "Retry-After": "1", Connection: "close" } },
  );
}
