/**
 * What one flow costs the store, counted: record operations (get, set, delete, take, add, increment)
 * and bytes written, for a client_credentials token, a password login through the login page with its
 * code exchange and userinfo, an SSO code flow, and a refresh, on Redis over real HTTP. The counts are
 * printed (docs/deployment.md's capacity section is computed from them) and bounded, so a change that
 * makes a flow dearer for the store shows here.
 */
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import { paths } from "../../src/http-kit/paths.ts";
import { CountingStore, OPERATIONS, type StoreCounts } from "../support/counting-store.ts";
import { postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, loginWithPassword, responseParams } from "../support/browser-login.ts";
import { redeemCode, refresh, VERIFIER } from "../support/code-grant.ts";
import { serviceUrl } from "../support/require-service.ts";

const redis = serviceUrl("redis");
const PKCE = { code_challenge: s256Challenge(VERIFIER), code_challenge_method: "S256" };

/** Per flow: the most operations of each kind and bytes it may take (the counts measured, with a little room). */
const BOUNDS: Record<string, { total: number; bytes: number }> = {
  client_credentials: { total: 0, bytes: 0 },
  "code flow (login) + userinfo": { total: 34, bytes: 7_000 },
  "code flow (SSO)": { total: 8, bytes: 1_300 },
  refresh: { total: 8, bytes: 1_000 },
};

describe.skipIf(!redis)("store operations per flow (Redis)", { timeout: 120_000 }, () => {
  let store: CountingStore;
  let p: TestProvider;
  const measured: Record<string, StoreCounts> = {};
  beforeAll(async () => {
    const url = `${redis}?prefix=ops${randomBytes(4).toString("hex")}`;
    store = new CountingStore(await createStore(url, { dataDir: "unused", logger: pino({ level: "silent" }) }));
    p = await startTestProvider({ storeUrl: url, store });
  });
  afterAll(async () => {
    await p?.close();
    await store?.close();
    const rows = Object.entries(measured).map(([flow, c]) => {
      const total = OPERATIONS.reduce((sum, op) => sum + c.operations[op], 0);
      return `${flow.padEnd(30)} ${OPERATIONS.map((op) => `${op} ${c.operations[op]}`).join(", ")}; total ${total}; ${c.bytesWritten} bytes written\n    operations: ${JSON.stringify(c.byKind)}\n    bytes: ${JSON.stringify(c.bytesByKind)}`;
    });
    console.log(`store operations per flow (Redis):\n${rows.join("\n")}`);
  });

  /** Runs one flow with the counter at zero, and checks its cost against its bounds. */
  async function count(flow: string, run: () => Promise<void>): Promise<StoreCounts> {
    store.take();
    await run();
    const counts = store.take();
    measured[flow] = counts;
    const total = OPERATIONS.reduce((sum, op) => sum + counts.operations[op], 0);
    expect(total, JSON.stringify(counts.byKind)).toBeLessThanOrEqual(BOUNDS[flow]!.total);
    expect(counts.bytesWritten).toBeLessThanOrEqual(BOUNDS[flow]!.bytes);
    return counts;
  }

  it("counts each flow's operations and bytes", async () => {
    // Warm-up, not counted: the first requests load caches (discovery, client lookups) once per process.
    await postForm(`${p.url}${paths.token}`, {
      grant_type: "client_credentials",
      client_id: "demo-service",
      client_secret: "demo-service-secret",
      scope: "acme",
    });

    const cc = await count("client_credentials", async () => {
      const answer = await postForm(`${p.url}${paths.token}`, {
        grant_type: "client_credentials",
        client_id: "demo-service",
        client_secret: "demo-service-secret",
        scope: "acme",
      });
      expect(answer.status).toBe(200);
    });
    // A self-contained JWT for a client authenticated from config: nothing from the store.
    expect(cc.bytesWritten).toBe(0);

    const browser = new RawBrowser();
    await count("code flow (login) + userinfo", async () => {
      const code = responseParams(await loginWithPassword(browser, authorizeUrl(p.url, PKCE))).get("code")!;
      const tokens = await redeemCode(p, code);
      expect(tokens.status, tokens.text).toBe(200);
      const userinfo = await send(`${p.url}${paths.userinfo}`, {
        headers: { authorization: `Bearer ${tokens.json!.access_token as string}` },
      });
      expect(userinfo.status).toBe(200);
    });

    const sso = async (scope: string) => {
      const answer = await browser.get(authorizeUrl(p.url, { ...PKCE, scope }));
      const tokens = await redeemCode(p, responseParams(answer).get("code")!);
      expect(tokens.status, tokens.text).toBe(200);
      return tokens.json!;
    };
    await count("code flow (SSO)", async () => void (await sso("openid profile")));

    const { refresh_token } = await sso("openid profile offline_access");
    await count("refresh", async () => {
      const answer = await refresh(p, refresh_token as string);
      expect(answer.status, answer.text).toBe(200);
    });
  });
});
