/**
 * The routes a running provider serves, read from the app itself rather than from a hand-kept list:
 * the protocol router's table (captured when createApp builds it, see recordingProtocolRouter) and
 * the Express application's router stack behind it. Middleware that serves paths without a route
 * (the static assets, catch-all 404s) is not a route and is not listed here.
 */
import type { createProtocolRouter as CreateProtocolRouter } from "../../src/http/protocol-router.ts";

/** One route: its path pattern (`:name` marks a parameter) and the methods it answers. */
export interface MountedRoute {
  path: string;
  methods: readonly string[];
  /** Served by the protocol router on node:http, or by the Express application. */
  servedBy: "protocol" | "express";
}

type ProtocolRouterModule = { createProtocolRouter: typeof CreateProtocolRouter };

let recorded: MountedRoute[] | undefined;

/**
 * The protocol-router module with createProtocolRouter wrapped to record what it is given. For
 * `vi.mock("…/protocol-router.ts", …)` in a test file: vitest mocks a module only from the file that
 * asks, and the router does not expose its table.
 */
export function recordingProtocolRouter(original: ProtocolRouterModule): ProtocolRouterModule {
  return {
    ...original,
    createProtocolRouter(routes, options) {
      recorded = [
        ...routes.map((r) => ({ path: r.path, methods: [...r.methods], servedBy: "protocol" as const })),
        ...expressRoutes(options.fallback),
      ];
      return original.createProtocolRouter(routes, options);
    },
  };
}

/** The routes of the last app built since recordingProtocolRouter was installed. */
export function mountedRoutes(): MountedRoute[] {
  if (!recorded) throw new Error("no app was built with the recording protocol router: is vi.mock in place?");
  return recorded;
}

/** The parts of router 2.x's Layer and Route that describe what is mounted where. */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every route of an Express 5 application, mounted routers included, with full paths. */
function expressRoutes(app: unknown): MountedRoute[] {
  const router = (app as { router?: { stack?: Layer[] } }).router;
  if (!router?.stack) throw new Error("the protocol router's fallback is not an Express 5 application");
  return walk(router.stack, "");
}

function walk(stack: Layer[], prefix: string): MountedRoute[] {
  return stack.flatMap((layer): MountedRoute[] => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).map((m) => m.toUpperCase());
      return [{ path: prefix + String(layer.route.path), methods, servedBy: "express" }];
    }
    if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === "string" && layer.rawPath !== "/" ? layer.rawPath : "";
      return walk(layer.handle.stack, prefix + mount);
    }
    return [];
  });
}
