import type { ExtensionHttp, StartedExtension } from "../plugin-contract/extension.ts";
import type { ProtocolRoute } from "../http-kit/protocol-route.ts";

/**
 * Every started extension's routes, each checked to lie under its manifest's prefix: an extension
 * cannot take over a path of the provider's own (or another extension's).
 */
export function extensionRoutes(extensions: readonly StartedExtension[], http: ExtensionHttp): ProtocolRoute[] {
  return extensions.flatMap(({ manifest, routes }) => {
    const served = routes(http);
    for (const route of served) {
      if (!route.path.startsWith(`${manifest.routePrefix}/`))
        throw new Error(`extension ${manifest.id}: the route ${route.path} is outside its prefix ${manifest.routePrefix}`);
    }
    return served;
  });
}
