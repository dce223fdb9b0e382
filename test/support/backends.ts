import { randomBytes } from "node:crypto";
import { serviceUrl } from "./require-service.ts";

export interface Backend {
  name: "embedded" | "redis" | "postgres";
  /** A store URL with a key prefix of its own, or undefined when the server is not installed (suite skipped). */
  url: () => string | undefined;
}

const withPrefix = (url: string | undefined) => (url === undefined ? undefined : `${url}${url.includes("?") ? "&" : "?"}prefix=t${randomBytes(6).toString("hex")}`);

/** Every store backend, for suites that must prove the same behaviour on each. */
export const BACKENDS: Backend[] = [
  { name: "embedded", url: () => "embedded" },
  { name: "redis", url: () => withPrefix(serviceUrl("redis")) },
  { name: "postgres", url: () => withPrefix(serviceUrl("postgres")) },
];
