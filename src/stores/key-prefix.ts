import { StoreUrlError } from "./store-url-error.ts";
/**
 * `?prefix=NAME` on a Redis or PostgreSQL store URL namespaces every key (`NAME:<kind>:<key>`), so several
 * deployments — or test runs — can share one server. It is ours, so it is removed from `params` before the
 * driver sees the URL. Undefined when absent (the backend's default prefix applies).
 */
export function takeKeyPrefix(params: URLSearchParams): string | undefined {
  const prefix = params.get("prefix");
  if (prefix === null) return undefined;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(prefix))
    throw new StoreUrlError(`store URL prefix "${prefix}" must be 1-64 letters, digits, '.', '_' or '-'`);
  params.delete("prefix");
  return `${prefix}:`;
}
