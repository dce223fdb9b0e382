import { Client } from "ldapts";
import type { LdapSettings } from "./ldap-settings.ts";

/**
 * A client for the configured directory, not yet connected (ldapts connects at the first operation),
 * with both timeouts. TLS options only for ldaps://: ldapts speaks TLS from the first byte whenever it is
 * given them, so an ldap:// URL (plain, or upgraded by StartTLS) must not get them.
 */
export function newLdapClient(settings: LdapSettings): Client {
  const { url, tls, connectTimeoutMs, operationTimeoutMs } = settings;
  return new Client({
    url,
    timeout: operationTimeoutMs,
    connectTimeout: connectTimeoutMs,
    ...(isLdaps(url) && { tlsOptions: tls }),
    strictDN: false,
  });
}

/** Whether the URL is ldaps:// (TLS from the first byte). */
export const isLdaps = (url: string): boolean => url.toLowerCase().startsWith("ldaps:");
