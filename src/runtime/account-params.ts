import { paths } from "../http-kit/paths.ts";
import type { ClientRegistry } from "../oauth/client-registry.ts";
import { isLang, type Lang } from "../i18n/lang.ts";

/**
 * What the account page carries from page to page (its links, forms, and the enrollments it starts):
 * the language the user chose and the application to go back to. Only values that mean something
 * are kept: one of the five languages, a registered client.
 */
export interface AccountParams {
  lang?: Lang;
  clientId?: string;
}

/** The parameters of a query or a form body; anything unknown is dropped. */
export function accountParams(source: Record<string, unknown> | undefined, clients: ClientRegistry): AccountParams {
  const params: AccountParams = {};
  const lang = typeof source?.lang === "string" ? source.lang.trim().toLowerCase() : undefined;
  if (isLang(lang)) params.lang = lang;
  const clientId = source?.client_id;
  if (typeof clientId === "string" && clients.get(clientId) !== undefined) params.clientId = clientId;
  return params;
}

/** A URL of the account pages (`/account` by default) with the parameters, then `extra`. */
export function accountUrl(params: AccountParams, extra: Record<string, string> = {}, path: string = paths.account): string {
  const query = new URLSearchParams();
  if (params.lang) query.set("lang", params.lang);
  if (params.clientId) query.set("client_id", params.clientId);
  for (const [name, value] of Object.entries(extra)) query.set(name, value);
  const search = query.toString();
  return search === "" ? path : `${path}?${search}`;
}
