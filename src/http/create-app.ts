import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express } from "express";
import type { Provider } from "../provider.ts";
import { requestLog } from "./middleware/request-log.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { errorHandler } from "./middleware/error-handler.ts";
import { OAuthError } from "../oauth/oauth-error.ts";
import { createProtocolRouter } from "./protocol-router.ts";
import { discoveryEndpoint, jwksEndpoint } from "./endpoints/metadata-endpoints.ts";
import { tokenEndpoint } from "./endpoints/token-endpoint.ts";
import { introspectionEndpoint } from "./endpoints/introspection-endpoint.ts";
import { revocationEndpoint } from "./endpoints/revocation-endpoint.ts";

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The provider's HTTP handler: the protocol router serves the non-interactive endpoints on node:http;
 * everything else (browser pages and flows, from the browser-login stage on) is the Express app.
 */
export function createApp(provider: Provider): RequestListener {
  const settings = provider.config.provider;
  return createProtocolRouter(
    [discoveryEndpoint(provider), jwksEndpoint(provider), tokenEndpoint(provider), introspectionEndpoint(provider), revocationEndpoint(provider)],
    {
      logger: provider.logger,
      logRequests: settings.logging.requests,
      maxBodyBytes: settings.security.max_body_bytes,
      fallback: createPagesApp(provider),
    },
  );
}

/** The Express application for everything that is not a protocol endpoint. */
function createPagesApp(provider: Provider): Express {
  const settings = provider.config.provider;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", settings.listen.trust_proxy);
  app.use(requestLog(provider.logger, settings.logging.requests));
  app.use(securityHeaders);
  app.use((_req, _res, next) => next(new OAuthError(404, "not_found", "no such endpoint")));
  app.use(errorHandler(provider.logger));
  return app;
}
