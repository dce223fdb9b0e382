import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { oauthError } from "../errors/oauth-error.ts";
import type { Exchange } from "../http-kit/exchange.ts";
import type { ProtocolRoute } from "../http-kit/protocol-route.ts";
import { readBody } from "../http-kit/read-body.ts";
import { beginRequest, requestLines } from "../http-kit/request-log.ts";
import { writeError } from "../http-kit/write-error.ts";

export interface ProtocolRouterOptions {
  logger: Logger;
  logRequests: boolean;
  maxBodyBytes: number;
  /** Everything that is not a protocol route: the Express application (pages, flows). */
  fallback: (req: IncomingMessage, res: ServerResponse) => void;
  /** Told of every request before it is served: `routed` when a protocol route serves `path` (metrics). */
  observe?: ((res: ServerResponse, path: string, routed: boolean) => void) | undefined;
}

/**
 * Serves the non-interactive protocol endpoints (token, introspection, revocation, discovery, JWKS)
 * straight on node:http, by exact path, and hands every other request to Express. These endpoints are
 * the provider's hot path; going through Express's router and middleware stack cost about a fifth of a
 * token request's CPU (docs/performance.md).
 */
export function createProtocolRouter(routes: readonly ProtocolRoute[], options: ProtocolRouterOptions) {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  const lines = options.logRequests ? requestLines(options.logger) : undefined;

  async function serve(route: ProtocolRoute, ex: Exchange): Promise<void> {
    if (!route.methods.includes(ex.req.method ?? "")) {
      const allow = route.methods.join(", ");
      throw oauthError("invalid_request", `use ${allow}`, { status: 405, headers: { Allow: allow } });
    }
    // Only a POST carries parameters in its body; a GET's body has no meaning (RFC 9110 §9.3.1), so it
    // is left unread (node:http discards it) rather than waited for.
    if (route.readsBody && ex.req.method === "POST") ex.body = await readBody(ex.req, options.maxBodyBytes);
    await route.handle(ex);
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    const route = byPath.get(path);
    options.observe?.(res, path, route !== undefined);
    if (!route) return options.fallback(req, res);
    const reqId = beginRequest(req, res, path, lines);
    const ex: Exchange = { req, res, reqId, path, body: undefined };
    serve(route, ex).catch((err: unknown) => (route.fail ? route.fail(ex, err) : writeError(res, err, options.logger, ex)));
  };
}
