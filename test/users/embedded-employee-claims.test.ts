import { describe, expect, it } from "vitest";
import { EmbeddedEmployees } from "../../src/users/embedded-employees.ts";

/** What users.yaml's employees carry beyond their listed claims: preferred_username and email_verified. */
const employees = new EmbeddedEmployees({
  users: [
    { username: "Alice", sub: "E1", disabled: false, claims: { email: "alice@example.com", given_name: "Alice", updated_at: 1767225600 } },
    { username: "bob", sub: "E2", disabled: false, claims: { email: "bob@home.example", email_verified: false } },
    { username: "carol", sub: "E3", disabled: false, claims: { email_verified: true } },
  ],
});

describe("an employee's derived claims", () => {
  it("marks an address verified, because the organisation assigned it, and names the login name as preferred_username", async () => {
    expect((await employees.findBySub("E1"))!.claims).toEqual({
      email: "alice@example.com",
      email_verified: true,
      given_name: "Alice",
      updated_at: 1767225600,
      preferred_username: "Alice",
    });
  });

  it("keeps users.yaml's email_verified: false for an address the organisation did not assign", async () => {
    expect((await employees.findBySub("E2"))!.claims.email_verified).toBe(false);
  });

  it("verifies nothing without an address", async () => {
    expect((await employees.findBySub("E3"))!.claims).toEqual({ preferred_username: "carol" });
  });
});
