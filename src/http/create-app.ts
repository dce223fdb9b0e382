import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express } from "express";
import type { Infra } from "../infra/infra.ts";
import { requestLog } from "./middleware/request-log.ts";
import { securityHeaders } from "../http-kit/security-headers.ts";
import { errorHandler } from "./middleware/error-handler.ts";
import { oauthError } from "../errors/oauth-error.ts";
import { createProtocolRouter, type ProtocolRouterOptions } from "./protocol-router.ts";
import { pageRouteLabel } from "./page-route-label.ts";
import { discoveryEndpoint, jwksEndpoint } from "./endpoints/metadata-endpoints.ts";
import { tokenEndpoint } from "./endpoints/token-endpoint.ts";
import { pushedAuthorizationRequestEndpoint } from "./endpoints/pushed-authorization-request-endpoint.ts";
import { introspectionEndpoint } from "./endpoints/introspection-endpoint.ts";
import { revocationEndpoint } from "./endpoints/revocation-endpoint.ts";
import { userinfoEndpoint } from "./endpoints/userinfo-endpoint.ts";
import { endSessionEndpoints } from "./endpoints/end-session-endpoint.ts";
import { authorizeEndpoints } from "./authorize/authorize-endpoint.ts";
import { eidCallbackEndpoint } from "./authorize/eid-callback-endpoint.ts";
import { createBrowserPages, type BrowserPages } from "../views/browser-pages.ts";
import { interactionRoutes } from "./authorize/interaction-pages/interaction-routes.ts";
import { partialName } from "./authorize/interaction-pages/interaction-page.ts";
import { createViewEngine, type ViewEngine } from "../views/view-engine.ts";
import { VIEWS_DIR } from "../views/views-dir.ts";
import { handleAsset } from "../views/assets.ts";
import { handleFavicon } from "../views/favicon.ts";
import { paths } from "../http-kit/paths.ts";
import { join } from "node:path";
import { accountRoutes } from "./authorize/account-routes.ts";
import { diagramRoutes } from "../diagrams/diagram-routes.ts";
import { requestLines } from "../http-kit/request-log.ts";
import { DEVICE_API_PATH, deviceApiRoutes } from "./device-api/device-api-routes.ts";
import { adminApiRoutes } from "./admin-api/admin-api-routes.ts";
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
export function createApp(infra: Infra, stopping: () => boolean): RequestListener {
  const settings = infra.settings;
  const views = createViews(infra);
  const pages = createBrowserPages(views);
  const http = extensionHttp(infra, views, pages);
  return createProtocolRouter(
    [
      discoveryEndpoint(infra),
      jwksEndpoint(infra),
      ...authorizeEndpoints(infra, pages),
      eidCallbackEndpoint(infra, pages),
      tokenEndpoint(infra),
      pushedAuthorizationRequestEndpoint(infra),
      introspectionEndpoint(infra),
      revocationEndpoint(infra),
      userinfoEndpoint(infra),
      ...endSessionEndpoints(infra, views, pages),
      ...extensionRoutes(infra.extensions, http),
      healthEndpoint(),
      readinessEndpoint(infra, stopping),
      ...mainPortMetrics(infra),
    ],
    {
      logger: infra.logger,
      logRequests: settings.logging.requests,
      maxBodyBytes: settings.security.max_body_bytes,
      fallback: createPagesApp(infra, views, pages),
      observe: requestMetrics(infra),
    },
  );
}

/** Each request counted under its route's label (src/metrics/http-metrics.ts); nothing when metrics are off. */
function requestMetrics(infra: Infra): ProtocolRouterOptions["observe"] {
  const http = infra.metrics?.http;
  return http && ((res, path, routed) => http.track(res, routed ? path : pageRouteLabel(path)));
}

/** /metrics on the main port: only with `metrics.token` and no separate `metrics.listen` (src/metrics/). */
function mainPortMetrics(infra: Infra): ProtocolRoute[] {
  const settings = infra.settings.metrics;
  if (!infra.metrics || settings?.token === undefined || settings.listen !== undefined) return [];
  return [metricsEndpoint(infra.metrics.registry, settings.token)];
}

/** The view engine with every configured factor method's strings and partials (compiled once, here). */
function createViews(infra: Infra): ViewEngine {
  const strings = [...infra.methods].map(([id, method]) => ({ dir: join(method.dir, "i18n"), prefix: `method.${id}` }));
  const views = createViewEngine({ viewsDir: VIEWS_DIR, assetsUrl: paths.assets, strings });
  for (const [id, { plugin }] of infra.methods) {
    for (const [view, source] of Object.entries(plugin.views)) views.registerPartial(partialName(id, view), source);
  }
  return views;
}

/** The Express application for everything that is not a protocol endpoint. */
function createPagesApp(infra: Infra, views: ViewEngine, pages: BrowserPages): Express {
  const settings = infra.settings;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", settings.listen.trust_proxy);
  app.use(requestLog(requestLines(infra.logger), settings.logging.requests));
  app.use(securityHeaders);
  app.use((req, res, next) => {
    if (!handleAsset(req, res, paths.assets) && !handleFavicon(req, res)) next();
  });
  app.use(interactionRoutes(infra, views, pages));
  app.use(accountRoutes(infra, views, pages));
  app.use(diagramRoutes(infra, views));
  for (const method of infra.methods.values()) {
    if (method.plugin.routes) app.use(method.plugin.manifest.routePrefix, method.plugin.routes(method.context));
  }
  app.use(DEVICE_API_PATH, deviceApiRoutes(infra));
  app.use(paths.admin, adminApiRoutes(infra));
  app.use((_req, _res, next) => next(oauthError("not_found", "no such endpoint")));
  app.use(errorHandler(infra.logger, pages));
  return app;
}
