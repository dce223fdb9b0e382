/**
 * An authorization code's lifetime holds to the provider's clock, not only to the store's expiry of its
 * record: a FAPI 2.0 client's 60 seconds (docs/fapi2.md) end on the provider's time, on every node.
 */
import { describe, expect, it } from "vitest";
import { AuthorizationCodes, presentedCode } from "../../src/oauth/authorization-codes.ts";
import type { AuthorizationCodeGrant } from "../../src/oauth/authorization-code.ts";
import { embeddedStoreForSuite } from "../support/embedded-test-store.ts";

const store = embeddedStoreForSuite("code-lifetime-");
// A frozen clock the test moves: the lifetime is measured on it alone (the store's own expiry is real time, 60 s away).
const start = Date.now();
let ahead = 0;
const clock = () => start + ahead;
const grant: AuthorizationCodeGrant = {
  clientId: "bank",
  redirectUri: "https://bank.example/cb",
  scopes: ["openid"],
  sub: "E10001",
  authTime: 1,
  amr: ["password"],
  acr: "1fa",
};

describe("an authorization code on the provider's clock", () => {
  it("is the same grant within its lifetime, and gone past it though the store still holds the record", async () => {
    const codes = new AuthorizationCodes(store(), clock);
    const inTime = presentedCode(await codes.issue(grant, 60));
    const late = presentedCode(await codes.issue(grant, 60));
    ahead = 59_000;
    expect(await codes.peek(inTime)).toEqual(grant);
    expect(await codes.take(inTime)).toEqual(grant);
    ahead = 61_000;
    expect(await codes.peek(late)).toBeUndefined();
    expect(await codes.take(late)).toBeUndefined();
  });
});
