import { randomBytes } from "node:crypto";
import { serviceUrl } from "./require-service.ts";

export interface Backend {
  name: "embedded" | "redis" | "postgres";
  /** A store URL with a key prefix of its own, so suites sharing one server keep apart. */
  url: string;
}

const withPrefix = (url: string) => `${url}${url.includes("?") ? "&" : "?"}prefix=t${randomBytes(6).toString("hex")}`;

/**
 * Every store backend whose server is available, for suites that must prove the same behaviour on
 * each. A missing server is announced by serviceUrl in one loud line (and fails the run in CI).
 */
export function availableBackends(): Backend[] {
  const backends: Backend[] = [{ name: "embedded", url: "embedded" }];
  for (const name of ["redis", "postgres"] as const) {
    const url = serviceUrl(name);
    if (url !== undefined) backends.push({ name, url: withPrefix(url) });
  }
  return backends;
}
