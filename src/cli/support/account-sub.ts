import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { parseVendorSub } from "../../users/vendor-accounts.ts";
import { CliError } from "./cli-error.ts";

/**
 * The sub an operator's account argument names: `<client_id>:<account>` is a vendor account (its sub
 * is that very value; user names never contain `:`), anything else an employee's user name. A vendor
 * account of a client that cannot make vendor logins is refused, so nothing is enrolled for an account
 * that could never log in.
 */
export async function accountSub(policy: Pick<PolicySnapshot, "users" | "clients" | "vendorAccounts">, name: string): Promise<string> {
  const vendor = name.includes(":") ? parseVendorSub(name) : undefined;
  if (name.includes(":") && vendor === undefined) throw new CliError(`"${name}" is no vendor account: expected <client_id>:<account>`);
  if (vendor === undefined) {
    const user = await policy.users.findByUsername(name);
    if (!user) throw new CliError(`no user "${name}" in the directory`);
    return user.sub;
  }
  const client = policy.clients.get(vendor.clientId);
  if (!client) throw new CliError(`no client "${vendor.clientId}" in clients.yaml, so no vendor account "${name}"`);
  if (!policy.vendorAccounts.allowsVendorLogin(client)) {
    const why = client.vendorSigningKey === undefined ? "has no signing_key" : "may not use login_type MyVendor (allowed_login_types)";
    throw new CliError(`client "${vendor.clientId}" ${why}, so it has no vendor accounts`);
  }
  return vendor.sub;
}
