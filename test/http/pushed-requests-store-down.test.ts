import { afterAll, beforeAll, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { embeddedStoreForSuite } from "../support/embedded-test-store.ts";
import { FaultyStore } from "../support/faulty-store.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { WEB, WEB_REDIRECT } from "../support/code-grant.ts";

/**
 * Pushed authorization requests while their store is down: the push is a 503 temporarily_unavailable
 * (JSON, to retry), authorize with a request_uri a 503 page — never a 500 or a stack trace — and the
 * request_uri pushed before the outage still works once the store is back.
 */
const embedded = embeddedStoreForSuite("portcullis-par-store-down-");
let store: FaultyStore;
let p: TestProvider;
beforeAll(async () => {
  store = new FaultyStore(embedded());
  p = await startTestProvider({ store });
});
afterAll(() => p?.close());

const form = { client_id: WEB.id, redirect_uri: WEB_REDIRECT, response_type: "code", scope: "openid", state: "s" };
const push = () => postForm(`${p.url}/connect/par`, form, { authorization: basic(WEB.id, WEB.secret) });
const authorize = (requestUri: string) =>
  new RawBrowser().get(`${p.issuer}/connect/authorize?${new URLSearchParams({ client_id: WEB.id, request_uri: requestUri })}`);

it("answers a push with 503 temporarily_unavailable, and authorize with a 503 page, while the store is down", async () => {
  const before = (await push()).json!.request_uri as string;
  store.breakWrites("pushedRequests", new StoreUnavailableError("embedded"));
  try {
    const refused = await push();
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ error: "temporarily_unavailable" });
    const page = await authorize(before);
    expect(page.status).toBe(503);
    expect(page.location).toBeUndefined();
    expect(page.text).toContain("temporarily_unavailable");
    expect(page.text).not.toMatch(/StoreUnavailableError|\bat /);
  } finally {
    store.mend();
  }
  expect((await authorize(before)).status).toBe(303);
});
