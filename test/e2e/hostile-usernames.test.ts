import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * A user name is caller input that reaches the store (attempt counters). Whatever it is — very long,
 * with NUL or control characters — the answer is the ordinary wrong-password answer, on every
 * backend: never a 500, and never a fake outage (503) that anyone with client credentials could cause.
 */
describe.each(availableBackends())("hostile user names on the $name store", ({ url: storeUrl }) => {
  let op: TestProvider;
  beforeAll(async () => {
    op = await startTestProvider({ storeUrl });
  });
  afterAll(() => op.close());

  it.each([
    ["300 characters", "a".repeat(300)],
    ["a NUL byte", "al\u0000ice"],
    ["control characters and emoji", "\u0007\u001b[31m😈"],
  ])("answers a user name of %s with 400 invalid_grant", async (_label, username) => {
    // The demo config's development adapters warn once at start-up; only what this request logs counts.
    const before = op.logs.length;
    const res = await postForm(
      `${op.url}/connect/token`,
      { grant_type: "password", username, password: "x" },
      { authorization: basic("demo-legacy", "demo-legacy-secret") },
    );
    expect(res.status).toBe(400);
    expect(res.json?.error).toBe("invalid_grant");
    expect(op.logs.slice(before).some((l) => (l.level as number) >= 40)).toBe(false);
  });
});
