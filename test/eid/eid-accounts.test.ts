/**
 * eID accounts: which subs are theirs, what a finished login writes (durably, across a restart of the
 * embedded store), what userinfo gets, and that such a sub counts as active in the user directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EidAccounts } from "../../src/eid/eid-accounts.ts";
import { EmbeddedStore } from "../../src/stores/embedded-store.ts";
import { EmbeddedEmployees } from "../../src/users/embedded-employees.ts";
import { UserDirectory } from "../../src/users/user-directory.ts";

const dirs: string[] = [];
const opened: EmbeddedStore[] = [];
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** A store on a fresh directory, closed after the tests. */
function freshStore(): EmbeddedStore {
  const store = new EmbeddedStore({ dir: storeDir() });
  opened.push(store);
  return store;
}

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-eid-accounts-"));
  dirs.push(dir);
  return dir;
}

let now = 1_700_000_000_000;
const clock = () => now;
const PREFIXES = ["eid:", "cz:"];

describe("EidAccounts", () => {
  it("owns exactly the subs carrying a declared upstream's prefix", () => {
    const accounts = new EidAccounts(freshStore(), clock, PREFIXES);
    expect(["eid:CZ-1", "cz:x:y", "E10001", "eid", "other:CZ-1", ""].map((sub) => accounts.owns(sub))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it("keeps what the last login said, durably, with the first login's time", async () => {
    const dir = storeDir();
    const store = new EmbeddedStore({ dir });
    const accounts = new EidAccounts(store, clock, PREFIXES);
    await accounts.record("national", { sub: "eid:CZ-1", claims: { name: "Mei", email: "old@example.org" } });
    now += 60_000;
    await accounts.record("national", { sub: "eid:CZ-1", claims: { name: "Mei Lin" } });
    await store.close();

    const reopened = new EmbeddedStore({ dir });
    try {
      const again = new EidAccounts(reopened, clock, PREFIXES);
      expect(await again.claims("eid:CZ-1")).toEqual({ name: "Mei Lin" });
      expect(await reopened.namespace("eidAccounts").get("eid:CZ-1")).toEqual({
        sub: "eid:CZ-1",
        upstream: "national",
        claims: { name: "Mei Lin" },
        createdAt: now - 60_000,
        updatedAt: now,
      });
    } finally {
      await reopened.close();
    }
  });

  it("answers userinfo with sub and the claims the scopes release, and nothing for an unknown or foreign sub", async () => {
    const store = new EmbeddedStore({ dir: storeDir() });
    try {
      const accounts = new EidAccounts(store, clock, PREFIXES);
      await accounts.record("national", { sub: "eid:CZ-1", claims: { name: "Mei", email: "mei@example.org", sub: "eid:someone-else" } });
      expect(await accounts.userinfo("eid:CZ-1", new Set(["sub", "name"]))).toEqual({ sub: "eid:CZ-1", name: "Mei" });
      expect(await accounts.userinfo("eid:CZ-2", new Set(["name"]))).toBeUndefined();
      // A record under a prefix no upstream declares any more is not read at all.
      expect(await new EidAccounts(store, clock, ["cz:"]).userinfo("eid:CZ-1", new Set(["name"]))).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("makes an eID sub active in the user directory (sessions, codes, refresh tokens live), an unknown one not", async () => {
    const accounts = new EidAccounts(freshStore(), clock, PREFIXES);
    const users = new UserDirectory(
      new EmbeddedEmployees({
        users: [
          { username: "alice", sub: "E10001", claims: {}, disabled: false },
          { username: "carl", sub: "E10003", claims: {}, disabled: true },
        ],
      }),
      accounts,
    );
    expect(await Promise.all(["E10001", "E10003", "eid:CZ-1", "nobody:CZ-1", "E99999"].map((sub) => users.isActive(sub)))).toEqual([
      true,
      false,
      true,
      false,
      false,
    ]);
    expect(await new UserDirectory(new EmbeddedEmployees({ users: [] })).isActive("eid:CZ-1")).toBe(false);
  });
});

describe("email_verified of an eID account", () => {
  it("is what the upstream said when its mapping carries a boolean, and false for an address it did not vouch for", async () => {
    const accounts = new EidAccounts(freshStore(), clock, PREFIXES);
    const names = new Set(["email", "email_verified"]);
    await accounts.record("dev-eid", { sub: "eid:1", claims: { email: "a@example.org", email_verified: true } });
    await accounts.record("dev-eid", { sub: "eid:2", claims: { email: "b@example.org" } });
    await accounts.record("dev-eid", { sub: "eid:3", claims: { email: "c@example.org", email_verified: "true" } });
    await accounts.record("dev-eid", { sub: "eid:4", claims: { email_verified: true } });
    expect(await accounts.userinfo("eid:1", names)).toEqual({ sub: "eid:1", email: "a@example.org", email_verified: true });
    expect(await accounts.userinfo("eid:2", names)).toEqual({ sub: "eid:2", email: "b@example.org", email_verified: false });
    // Only a JSON true verifies: a string from a careless upstream does not.
    expect(await accounts.userinfo("eid:3", names)).toEqual({ sub: "eid:3", email: "c@example.org", email_verified: false });
    // No address, nothing verified.
    expect(await accounts.userinfo("eid:4", names)).toEqual({ sub: "eid:4" });
    // Not released without the scope that releases it.
    expect(await accounts.userinfo("eid:1", new Set(["email"]))).toEqual({ sub: "eid:1", email: "a@example.org" });
  });
});
