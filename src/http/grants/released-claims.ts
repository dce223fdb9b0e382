import type { EidAccounts } from "../../eid/eid-accounts.ts";
import type { Client } from "../../oauth/client-registry.ts";
import { withBirthdateFormat } from "../../scopes/birthdate-format.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";

/**
 * The claims among `names` of whoever `sub` is, as `client` receives them (`birthdate` in its
 * birthdate_format): an employee of the directory, an eID account (what its upstream said at the last
 * login) or a vendor account (its sub and account name). `sub` is always included; undefined when `sub`
 * names no one who may still sign in. For the ID token's requested claims; userinfo, a hot path, keeps
 * its own per-scope cache around the same calls.
 */
export async function releasedClaims(
  policy: Pick<PolicySnapshot, "users" | "vendorAccounts">,
  eidAccounts: Pick<EidAccounts, "owns" | "userinfo">,
  client: Pick<Client, "config">,
  sub: string,
  names: ReadonlySet<string>,
): Promise<Record<string, unknown> | undefined> {
  const format = client.config.birthdate_format ?? "spec";
  const user = await policy.users.findBySub(sub);
  if (user !== undefined) return user.disabled ? undefined : withBirthdateFormat(policy.users.claims(user, names), format);
  if (eidAccounts.owns(sub)) {
    const claims = await eidAccounts.userinfo(sub, names);
    return claims && withBirthdateFormat(claims, format);
  }
  return policy.vendorAccounts.userinfo(sub, names);
}
