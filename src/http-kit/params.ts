import type { Exchange } from "./exchange.ts";
import { invalidRequest } from "../errors/oauth-error.ts";

/** Request parameters after the RFC 6749 rules: each at most once, empty ones treated as omitted. */
export type Params = ReadonlyMap<string, string>;

export interface ParamLimits {
  maxParameterLength: number;
}

/** Collects parameters from a query string or form body; a repeated or overlong parameter is invalid_request. */
export function collectParams(search: URLSearchParams, limits: ParamLimits): Params {
  const params = new Map<string, string>();
  for (const [name, value] of search) {
    // RFC 6749 §3.1: parameters sent without a value are treated as omitted.
    if (value === "") continue;
    if (params.has(name)) throw invalidRequest(`parameter '${name.slice(0, 64)}' is repeated`);
    if (value.length > limits.maxParameterLength) throw invalidRequest(`parameter '${name.slice(0, 64)}' is too long`);
    params.set(name, value);
  }
  return params;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;

/**
 * Parses the body of a POST as application/x-www-form-urlencoded. The body was read with a size
 * limit, so an oversized body never reaches here (it is a 413).
 */
export function readFormBody(ex: Exchange, limits: ParamLimits): Params {
  return collectParams(formBody(ex), limits);
}

/** The body of a POST as application/x-www-form-urlencoded pairs, repeats and all (for endpoints with their own parameter rules). */
export function formBody(ex: Exchange): URLSearchParams {
  const type = ex.req.headers["content-type"] ?? "";
  if (!FORM_TYPE.test(type)) throw invalidRequest("the request body must be application/x-www-form-urlencoded");
  return new URLSearchParams(ex.body?.toString("utf8") ?? "");
}
