import express, { type Express } from "express";
import type { Provider } from "../provider.ts";
import { paths } from "./paths.ts";
import { requestLog } from "./middleware/request-log.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { allowMethods } from "./middleware/allow-methods.ts";
import { errorHandler } from "./middleware/error-handler.ts";
import { OAuthError } from "../oauth/oauth-error.ts";
import { discoveryEndpoint, jwksEndpoint } from "./endpoints/metadata-endpoints.ts";
import { tokenEndpoint } from "./endpoints/token-endpoint.ts";
import { introspectionEndpoint } from "./endpoints/introspection-endpoint.ts";
import { revocationEndpoint } from "./endpoints/revocation-endpoint.ts";

/** The Express application: middleware, the protocol routes, and one error handler. */
export function createApp(provider: Provider): Express {
  const settings = provider.config.provider;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", settings.listen.trust_proxy);

  app.use(requestLog(provider.logger, settings.logging.requests));
  app.use(securityHeaders);

  // Bodies are read raw with a hard size limit; each endpoint parses and checks its own form.
  const form = express.raw({ type: () => true, limit: settings.security.max_body_bytes });

  app.all(paths.discovery, allowMethods("GET", "HEAD"), discoveryEndpoint(provider));
  app.all(paths.jwks, allowMethods("GET", "HEAD"), jwksEndpoint(provider));
  app.all(paths.token, allowMethods("POST"), form, tokenEndpoint(provider));
  app.all(paths.introspection, allowMethods("POST"), form, introspectionEndpoint(provider));
  app.all(paths.revocation, allowMethods("POST"), form, revocationEndpoint(provider));

  app.use((_req, _res, next) => next(new OAuthError(404, "not_found", "no such endpoint")));
  app.use(errorHandler(provider.logger));
  return app;
}
