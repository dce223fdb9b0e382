import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send, startTestProvider, type TestProvider } from "../../support/test-provider.ts";
import { errorOfScript, loadLoginJs, loginJsUrl, renew } from "../../support/custom-login.ts";

/** Every QR code is a record in the shared store: one address gets custom-login.yaml's budget of them per window. */
let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider({ edits: { "custom-login.yaml": { "scan_sessions_per_ip.max": 3, "scan_sessions_per_ip.window": "1h" } } });
});
afterAll(() => p.close());

describe("the scan sessions one address may start", () => {
  it("counts LoginJs loads and renewals; beyond the budget LoginJs answers 429 with its error script, and Renew a 429", async () => {
    const first = await loadLoginJs(p);
    const second = await loadLoginJs(p);
    expect((await renew(first)).status).toBe(200);
    const over = await send(loginJsUrl(p));
    expect(over.status).toBe(429);
    expect(errorOfScript(over.text)).toMatch(/too many QR codes requested from this address/);
    // A browser's script tag still gets a script it runs.
    expect((await send(loginJsUrl(p), { headers: { "sec-fetch-dest": "script" } })).status).toBe(200);
    const renewed = await renew(second);
    expect(renewed.status).toBe(429);
    expect(renewed.json).toMatchObject({ error: "temporarily_unavailable" });
  });
});
