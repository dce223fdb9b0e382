import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { writeJson } from "../../http-kit/write-response.ts";
import { paths } from "../../http-kit/paths.ts";

/** A store that has not answered by then counts as unavailable: a readiness probe must answer quickly. */
const STORE_PING_TIMEOUT_MS = 1_000;

type Check = "ok" | "unavailable";

/** GET /healthz: the process is up and serving (liveness); it checks nothing else, so a store outage never restarts it. */
export function healthEndpoint(): ProtocolRoute {
  return { path: paths.healthz, methods: ["GET", "HEAD"], readsBody: false, handle: (ex) => writeJson(ex.res, 200, { status: "ok" }) };
}

/**
 * GET /readyz: whether this node should get traffic — the store answers, a signing key is current, the
 * policy is loaded. 200 `{status: "ready", checks}`, else 503 `{status: "not_ready", checks}` naming
 * what is not (a load balancer takes the node out until it recovers by itself). Once the process is
 * `stopping` (src/http/graceful-close.ts) 503 `{status: "stopping"}`: it will not recover.
 */
export function readinessEndpoint(infra: Infra, stopping: () => boolean): ProtocolRoute {
  return {
    path: paths.readyz,
    methods: ["GET", "HEAD"],
    readsBody: false,
    handle: async (ex) => {
      if (stopping()) return writeJson(ex.res, 503, { status: "stopping" });
      const checks: Record<"store" | "keys" | "policy", Check> = {
        store: await storeCheck(infra),
        keys: keysCheck(infra),
        policy: takeScope(infra).policy.flows === undefined ? "unavailable" : "ok",
      };
      const ready = Object.values(checks).every((check) => check === "ok");
      writeJson(ex.res, ready ? 200 : 503, { status: ready ? "ready" : "not_ready", checks });
    },
  };
}

async function storeCheck(infra: Pick<Infra, "store">): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => (timer = setTimeout(() => resolve("unavailable"), STORE_PING_TIMEOUT_MS)));
  try {
    return await Promise.race([infra.store.ping().then((): Check => "ok"), timeout]);
  } catch {
    return "unavailable";
  } finally {
    clearTimeout(timer);
  }
}

function keysCheck(infra: Pick<Infra, "keys">): Check {
  try {
    return infra.keys.keys.signing ? "ok" : "unavailable";
  } catch {
    return "unavailable";
  }
}
