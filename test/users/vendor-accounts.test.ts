import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClientConfig } from "../../src/config/types.generated.ts";
import { ClientRegistry } from "../../src/oauth/client-registry.ts";
import { EmbeddedEmployees } from "../../src/users/embedded-employees.ts";
import { UserDirectory } from "../../src/users/user-directory.ts";
import { parseVendorSub, VendorAccounts, vendorLoginTypes } from "../../src/users/vendor-accounts.ts";
import { mintCode, redeemCode } from "../support/code-grant.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const LIFETIMES = {
  access_token: "1h",
  id_token: "1h",
  refresh_token: "30d",
  authorization_code: "5m",
  client_credentials_access_token: "1h",
} as never;
const KEY = "vendor-signing-key-0123456789";

function client(client_id: string, rules: Partial<ClientConfig> = {}): ClientConfig {
  return {
    client_id,
    type: "confidential",
    grant_types: ["authorization_code"],
    redirect_uris: [],
    post_logout_redirect_uris: [],
    allowed_scopes: ["openid", "profile"],
    ...rules,
  } as ClientConfig;
}

const clients = new ClientRegistry(
  [
    client("vendor-app", { allowed_login_types: ["myvendor"], signing_key: KEY }),
    client("everything", { signing_key: KEY }),
    client("no-key", { allowed_login_types: ["MyVendor"] }),
    client("no-vendor-type", { allowed_login_types: ["2FA"], signing_key: KEY }),
  ],
  LIFETIMES,
);
const types = vendorLoginTypes({
  login_types: { MyVendor: { flow: "second_factor", login_hint: "vendor" }, "2FA": { flow: "two_factor" } } as never,
});
const vendors = new VendorAccounts(clients, types);

describe("vendor accounts", () => {
  it("reads <client_id>:<account> at the first colon, and nothing with an empty part", () => {
    expect(parseVendorSub("vendor-app:ops:night")).toEqual({ sub: "vendor-app:ops:night", clientId: "vendor-app", account: "ops:night" });
    for (const sub of ["vendor-app", ":ops", "vendor-app:", "E10001"]) expect(parseVendorSub(sub)).toBeUndefined();
  });

  it("takes the login types whose login_hint is vendor, by lower-cased name", () => {
    expect([...types]).toEqual(["myvendor"]);
  });

  it("exists while its client is registered, may use a vendor login type and has a signing key", () => {
    expect(vendors.owns("vendor-app:ops")).toBe(true);
    // allowed_login_types omitted: every declared type, MyVendor included.
    expect(vendors.owns("everything:ops")).toBe(true);
    for (const sub of ["no-key:ops", "no-vendor-type:ops", "gone:ops", "vendor-app:"]) expect(vendors.owns(sub)).toBe(false);
  });

  it("answers userinfo with its sub, and the account as name when profile is granted", () => {
    expect(vendors.userinfo("vendor-app:ops", new Set(["name", "emp_no"]))).toEqual({ sub: "vendor-app:ops", name: "ops" });
    expect(vendors.userinfo("vendor-app:ops", new Set())).toEqual({ sub: "vendor-app:ops" });
    expect(vendors.userinfo("no-key:ops", new Set(["name"]))).toBeUndefined();
  });

  it("counts as an active user of the directory, beside employees", async () => {
    const users = new UserDirectory(
      new EmbeddedEmployees({ users: [{ username: "alice", sub: "E10001", claims: {}, disabled: false }] }),
      vendors,
    );
    expect(await users.isActive("vendor-app:ops")).toBe(true);
    expect(await users.isActive("E10001")).toBe(true);
    expect(await users.isActive("no-vendor-type:ops")).toBe(false);
    expect(await users.findBySub("vendor-app:ops")).toBeUndefined();
  });

  it("is an account an operator may record methods for, as an employee is (a disabled one too), a dead one not", async () => {
    const users = new UserDirectory(
      new EmbeddedEmployees({ users: [{ username: "bob", sub: "E10002", claims: {}, disabled: true }] }),
      vendors,
    );
    expect(await users.hasAccount("vendor-app:ops")).toBe(true);
    expect(await users.hasAccount("E10002")).toBe(true);
    for (const sub of ["no-key:ops", "gone:ops", "E99999"]) expect(await users.hasAccount(sub)).toBe(false);
  });
});

describe("vendor accounts at the token and userinfo endpoints", { timeout: 60_000 }, () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider();
  });
  afterAll(() => p.close());

  const VENDOR = { id: "demo-vendor", secret: "demo-vendor-secret" };
  const grant = (sub: string) => ({
    clientId: VENDOR.id,
    redirectUri: "http://localhost:3004/callback",
    scopes: ["openid", "profile"],
    sub,
    amr: ["totp"],
    acr: "1fa",
  });

  it("gives a demo-vendor account's token userinfo with its sub and the account as name", async () => {
    const code = await mintCode(p, grant("demo-vendor:acme-support"));
    const tokens = await redeemCode(p, code, { redirect_uri: "http://localhost:3004/callback" }, VENDOR);
    expect(tokens.status, tokens.text).toBe(200);
    const info = await send(`${p.url}/connect/userinfo`, {
      headers: { authorization: `Bearer ${(tokens.json as { access_token: string }).access_token}` },
    });
    expect(info.status).toBe(200);
    expect(info.json).toEqual({ sub: "demo-vendor:acme-support", name: "acme-support" });
  });

  it("redeems no code of an account whose client cannot make vendor logins", async () => {
    const code = await mintCode(p, grant("demo-web:acme-support"));
    const tokens = await redeemCode(p, code, { redirect_uri: "http://localhost:3004/callback" }, VENDOR);
    expect(tokens.status).toBe(400);
    expect(tokens.json).toMatchObject({ error: "invalid_grant" });
  });
});
