import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express } from "express";
import type { Provider } from "../provider.ts";
import { requestLog } from "./middleware/request-log.ts";
import { securityHeaders } from "../http-kit/security-headers.ts";
import { errorHandler } from "./middleware/error-handler.ts";
import { oauthError } from "../errors/oauth-error.ts";
import { createProtocolRouter, type ProtocolRouterOptions } from "./protocol-router.ts";
import { pageRouteLabel } from "./page-route-label.ts";
import { discoveryEndpoint, jwksEndpoint } from "./endpoints/metadata-endpoints.ts";
import { tokenEndpoint } from "./endpoints/token-endpoint.ts";
import { introspectionEndpoint } from "./endpoints/introspection-endpoint.ts";
import { revocationEndpoint } from "./endpoints/revocation-endpoint.ts";
import { userinfoEndpoint } from "./endpoints/userinfo-endpoint.ts";
import { endSessionEndpoints } from "./endpoints/end-session-endpoint.ts";
import { authorizeEndpoints } from "./authorize/authorize-endpoint.ts";
import { eidCallbackEndpoint } from "./authorize/eid-callback-endpoint.ts";
import { createBrowserPages, type BrowserPages } from "../views/browser-pages.ts";
import { interactionRoutes, partialName } from "./authorize/interaction-routes.ts";
import { createViewEngine, type ViewEngine } from "../views/view-engine.ts";
import { VIEWS_DIR } from "../views/views-dir.ts";
import { handleAsset } from "../views/assets.ts";
import { handleFavicon } from "../views/favicon.ts";
import { paths } from "../http-kit/paths.ts";
import { join } from "node:path";
import { accountRoutes } from "./authorize/account-routes.ts";
import { diagramRoutes } from "../diagrams/diagram-routes.ts";
import { methodRoutesPath } from "../runtime/loaded-methods.ts";
import { requestLines } from "../http-kit/request-log.ts";
import { DEVICE_API_PATH, deviceApiRoutes } from "./device-api/device-api-routes.ts";
import { extensionHttp } from "./extension-http.ts";
import { extensionRoutes } from "./extension-routes.ts";
import { healthEndpoint, readinessEndpoint } from "./endpoints/health-endpoints.ts";
import { metricsEndpoint } from "../metrics/metrics-endpoint.ts";
import type { ProtocolRoute } from "../http-kit/protocol-route.ts";

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The provider's HTTP handler: the protocol router serves the non-interactive endpoints on node:http;
 * everything else (browser pages and flows, from the browser-login stage on) is the Express app.
 * `stopping` says the process has begun to stop (its readiness is then 503).
 */
export function createApp(provider: Provider, stopping: () => boolean): RequestListener {
  const settings = provider.config.provider;
  const views = createViews(provider);
  const pages = createBrowserPages(views);
  const http = extensionHttp(provider, views, pages);
  return createProtocolRouter(
    [
      discoveryEndpoint(provider),
      jwksEndpoint(provider),
      ...authorizeEndpoints(provider, pages),
      eidCallbackEndpoint(provider, pages),
      tokenEndpoint(provider),
      introspectionEndpoint(provider),
      revocationEndpoint(provider),
      userinfoEndpoint(provider),
      ...endSessionEndpoints(provider, views, pages),
      ...extensionRoutes(provider.extensions, http),
      healthEndpoint(),
      readinessEndpoint(provider, stopping),
      ...mainPortMetrics(provider),
    ],
    {
      logger: provider.logger,
      logRequests: settings.logging.requests,
      maxBodyBytes: settings.security.max_body_bytes,
      fallback: createPagesApp(provider, views, pages),
      observe: requestMetrics(provider),
    },
  );
}

/** Each request counted under its route's label (src/metrics/http-metrics.ts); nothing when metrics are off. */
function requestMetrics(provider: Provider): ProtocolRouterOptions["observe"] {
  const http = provider.metrics?.http;
  return http && ((res, path, routed) => http.track(res, routed ? path : pageRouteLabel(path)));
}

/** /metrics on the main port: only with `metrics.token` and no separate `metrics.listen` (src/metrics/). */
function mainPortMetrics(provider: Provider): ProtocolRoute[] {
  const settings = provider.config.provider.metrics;
  if (!provider.metrics || settings?.token === undefined || settings.listen !== undefined) return [];
  return [metricsEndpoint(provider.metrics.registry, settings.token)];
}

/** The view engine with every configured factor method's strings and partials (compiled once, here). */
function createViews(provider: Provider): ViewEngine {
  const strings = [...provider.policy.methods].map(([id, method]) => ({ dir: join(method.dir, "i18n"), prefix: `method.${id}` }));
  const views = createViewEngine({ viewsDir: VIEWS_DIR, assetsUrl: paths.assets, strings });
  for (const [id, { plugin }] of provider.policy.methods) {
    for (const [view, source] of Object.entries(plugin.views)) views.registerPartial(partialName(id, view), source);
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
  app.use(requestLog(requestLines(provider.logger), settings.logging.requests));
  app.use(securityHeaders);
  app.use((req, res, next) => {
    if (!handleAsset(req, res, paths.assets) && !handleFavicon(req, res)) next();
  });
  app.use(interactionRoutes(provider, views, pages));
  app.use(accountRoutes(provider, views, pages));
  app.use(diagramRoutes(provider, views));
  for (const [id, method] of provider.policy.methods) {
    if (method.plugin.routes) app.use(methodRoutesPath(id), method.plugin.routes(method.context));
  }
  app.use(DEVICE_API_PATH, deviceApiRoutes(provider));
  app.use((_req, _res, next) => next(oauthError("not_found", "no such endpoint")));
  app.use(errorHandler(provider.logger, pages));
  return app;
}
