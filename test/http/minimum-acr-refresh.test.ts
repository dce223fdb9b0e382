import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeTokens, mintCode, redeemCode, refresh } from "../support/code-grant.ts";
import { editConfig, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * Raising a client's minimum_acr reaches what it already holds: a refresh family or an unredeemed code
 * from a one-factor login yields no more tokens (invalid_grant, naming the minimum); a two-factor one goes on.
 */
let p: TestProvider;

beforeAll(async () => {
  p = await startTestProvider();
}, 120_000);
afterAll(() => p?.close());

describe("demo-web's minimum_acr raised to 2fa", () => {
  it("refuses a one-factor refresh family and code, and serves a two-factor family", async () => {
    const scopes = ["openid", "offline_access"];
    const oneFactor = await codeTokens(p, { scopes, acr: "1fa", amr: ["password"] });
    const twoFactor = await codeTokens(p, { scopes, acr: "2fa" });
    const rotated = await refresh(p, oneFactor.refresh_token!);
    expect(rotated.status, rotated.text).toBe(200);
    const unredeemed = await mintCode(p, { scopes, acr: "1fa", amr: ["password"] });

    editConfig(p.configDir, "clients.yaml", { "clients.0.minimum_acr": "2fa" });
    expect(await p.reload()).toMatchObject({ ok: true, errors: [] });

    expect((await refresh(p, twoFactor.refresh_token!)).status).toBe(200);
    const denied = await refresh(p, rotated.json!.refresh_token as string);
    expect(denied.status, denied.text).toBe(400);
    expect(denied.json).toMatchObject({ error: "invalid_grant" });
    expect(denied.json!.error_description).toContain("minimum_acr");
    const code = await redeemCode(p, unredeemed);
    expect(code.status, code.text).toBe(400);
    expect(code.json).toMatchObject({ error: "invalid_grant" });
    expect(code.json!.error_description).toContain("minimum_acr");
  });
});
