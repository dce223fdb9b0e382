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
import { userinfoEndpoint } from "./endpoints/userinfo-endpoint.ts";
import { endSessionEndpoints } from "./endpoints/end-session-endpoint.ts";
import { authorizeEndpoints } from "./authorize/authorize-endpoint.ts";
import { createBrowserPages, type BrowserPages } from "./browser-pages.ts";
import { interactionRoutes, partialName } from "../runtime/interaction-routes.ts";
import { createViewEngine, type ViewEngine } from "../views/view-engine.ts";
import { VIEWS_DIR } from "../views/views-dir.ts";
import { handleAsset } from "../views/assets.ts";
import { paths } from "./paths.ts";
import { requestLineLogger } from "./request-log.ts";

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The provider's HTTP handler: the protocol router serves the non-interactive endpoints on node:http;
 * everything else (browser pages and flows, from the browser-login stage on) is the Express app.
 */
export function createApp(provider: Provider): RequestListener {
  const settings = provider.config.provider;
  const views = createViews(provider);
  const pages = createBrowserPages(views);
  return createProtocolRouter(
    [
      discoveryEndpoint(provider),
      jwksEndpoint(provider),
      ...authorizeEndpoints(provider, pages),
      tokenEndpoint(provider),
      introspectionEndpoint(provider),
      revocationEndpoint(provider),
      userinfoEndpoint(provider),
      ...endSessionEndpoints(provider, views, pages),
    ],
    {
      logger: provider.logger,
      logRequests: settings.logging.requests,
      maxBodyBytes: settings.security.max_body_bytes,
      fallback: createPagesApp(provider, views, pages),
    },
  );
}

/** The view engine with every configured factor method's partials registered (compiled once, here). */
function createViews(provider: Provider): ViewEngine {
  const views = createViewEngine({ viewsDir: VIEWS_DIR, assetsUrl: paths.assets });
  const registered = new Set<string>();
  for (const flow of provider.flows.values()) {
    for (const [id, { plugin }] of flow.methods) {
      for (const [view, source] of Object.entries(plugin.views)) {
        const name = partialName(id, view);
        if (!registered.has(name)) views.registerPartial(name, source);
        registered.add(name);
      }
    }
  }
  return views;
}

/** The Express application for everything that is not a protocol endpoint. */
function createPagesApp(provider: Provider, views: ViewEngine, pages: BrowserPages): Express {
  const settings = provider.config.provider;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", settings.listen.trust_proxy);
  app.use(requestLog(requestLineLogger(provider.logger), settings.logging.requests));
  app.use(securityHeaders);
  app.use((req, res, next) => {
    if (!handleAsset(req, res, paths.assets)) next();
  });
  app.use(interactionRoutes(provider, views, pages));
  app.use((_req, _res, next) => next(new OAuthError(404, "not_found", "no such endpoint")));
  app.use(errorHandler(provider.logger));
  return app;
}
