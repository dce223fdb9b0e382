import type { LoginFile } from "../config/types.generated.ts";
import type { ExternalAccounts } from "./user-directory.ts";

/** A MyVendor account: what login_hint `<client_id>:<account>` names, which is also its sub. */
export interface VendorAccount {
  sub: string;
  clientId: string;
  account: string;
}

/** The client id and account of a vendor sub (split at the first `:`, which no client id contains); undefined when either part is empty. */
export function parseVendorSub(sub: string): VendorAccount | undefined {
  const colon = sub.indexOf(":");
  if (colon <= 0 || colon === sub.length - 1) return undefined;
  return { sub, clientId: sub.slice(0, colon), account: sub.slice(colon + 1) };
}

/** What a vendor account needs of its client (src/oauth's Client has it; this folder does not import that one). */
export interface VendorClient {
  /** allowed_login_types lower-cased; undefined: every declared type. */
  readonly allowedLoginTypes: ReadonlySet<string> | undefined;
  readonly vendorSigningKey: string | undefined;
}

/** The lower-cased names of the login types whose login_hint is a vendor account (login.yaml `login_hint: vendor`). */
export function vendorLoginTypes(login: Pick<LoginFile, "login_types">): Set<string> {
  return new Set(
    Object.entries(login.login_types ?? {}).flatMap(([name, type]) => (type.login_hint === "vendor" ? [name.toLowerCase()] : [])),
  );
}

/**
 * The vendor accounts (DESIGN "MyVendor accounts"): not employees and not stored anywhere. The vendor's
 * system vouches for each by signing its login links, so an account exists exactly while its client
 * may make vendor logins: the client is registered, may use a vendor login type and has a signing key
 * (without one no link can be signed). Removing the client, or MyVendor from its allowed_login_types,
 * ends every session, code and refresh token of its accounts (UserDirectory.isActive).
 */
export class VendorAccounts implements ExternalAccounts {
  private readonly clients: { get(clientId: string): VendorClient | undefined };
  /** vendorLoginTypes(login.yaml) */
  private readonly loginTypes: ReadonlySet<string>;

  constructor(clients: { get(clientId: string): VendorClient | undefined }, loginTypes: ReadonlySet<string>) {
    this.clients = clients;
    this.loginTypes = loginTypes;
  }

  /** Whether `client` may make vendor logins at all. */
  allowsVendorLogin(client: VendorClient): boolean {
    if (client.vendorSigningKey === undefined) return false;
    const allowed = client.allowedLoginTypes;
    return [...this.loginTypes].some((type) => allowed === undefined || allowed.has(type));
  }

  /** The account `sub` names, when its client may make vendor logins. */
  find(sub: string): VendorAccount | undefined {
    const account = parseVendorSub(sub);
    if (account === undefined) return undefined;
    const client = this.clients.get(account.clientId);
    return client !== undefined && this.allowsVendorLogin(client) ? account : undefined;
  }

  /** ExternalAccounts: a live vendor account (UserDirectory.isActive counts it active). */
  owns(sub: string): boolean {
    return this.find(sub) !== undefined;
  }

  /**
   * The userinfo answer: sub, and as `name` (when the token's scopes release it) the account part of
   * the login_hint, the only thing the provider knows of a vendor account (docs/decisions.md).
   */
  userinfo(sub: string, names: ReadonlySet<string>): Record<string, unknown> | undefined {
    const account = this.find(sub);
    if (account === undefined) return undefined;
    return { sub, ...(names.has("name") && { name: account.account }) };
  }
}
