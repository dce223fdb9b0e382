import { paths } from "../http-kit/paths.ts";
import { DEVICE_API_PATH } from "../trusted-app/acmeauth-uri.ts";

/** The page areas whose paths carry ids (/interaction/<id>, /methods/<id>/..., /admin/users/<user>/...): one label each, `<prefix>/*`. */
const PREFIXES = [paths.interaction, paths.account, paths.diagrams, paths.methods, paths.assets, DEVICE_API_PATH, paths.admin].map(
  (prefix) => ({
    prefix,
    below: `${prefix}/`,
    label: `${prefix}/*`,
  }),
);

const EXACT = new Set<string>(Object.values(paths));

/**
 * The metrics label of a path the protocol router did not serve (browser pages, flows): a known path, a
 * known area's template, or "other". Never the raw path: anyone can request any path, and every distinct
 * label value is a time series the provider and Prometheus keep forever.
 */
export function pageRouteLabel(path: string): string {
  if (EXACT.has(path)) return path;
  for (const area of PREFIXES) {
    if (path === area.prefix) return area.prefix;
    if (path.startsWith(area.below)) return area.label;
  }
  return "other";
}
