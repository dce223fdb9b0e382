import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * One request/response pair as the protocol endpoints see it: plain node:http objects (no framework),
 * the request id, the path without its query, and the body when the route reads one.
 */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly reqId: string;
  readonly path: string;
  body: Buffer | undefined;
}
