import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { assertionForm, clientKeyPair, keyClient, signAssertion, type ClientKeyPair } from "../support/client-assertions.ts";
import { startJwksServer, type JwksServer } from "../support/jwks-server.ts";

/**
 * private_key_jwt with the client's keys at its jwks_uri, served on loopback: openid-client's
 * PrivateKeyJwt against the real token endpoint while the client rotates its key. The provider's
 * clock is moved (never waited for): the set is cached, fetched again for a new kid but not more often
 * than the floor allows, and kept when the client's key server fails.
 */
let op: TestProvider;
let keys: JwksServer;
let events: AuditEvent[];
let first: ClientKeyPair;
let second: ClientKeyPair;
/** How far the provider's clock is ahead of the real one, in seconds. */
let ahead = 0;

beforeAll(async () => {
  [first, second] = await Promise.all([clientKeyPair("ES256", "2026-01"), clientKeyPair("RS256", "2026-02")]);
  keys = await startJwksServer();
  keys.publish([first.publicJwk], "public, max-age=600");
  op = await startTestProvider({
    clock: () => Date.now() + ahead * 1000,
    edits: { "clients.yaml": { "clients.+0": keyClient("remote-key-client", { jwks_uri: keys.url }) } },
  });
  events = collectAudit(op);
});
afterAll(async () => {
  await op?.close();
  await keys?.close();
});

/** openid-client as the client, signing with `key`, its clock as far ahead as the provider's. */
async function clientCredentials(key: ClientKeyPair) {
  const config = await oidc.discovery(
    new URL(op.issuer),
    "remote-key-client",
    { [oidc.clockSkew]: ahead },
    oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }),
    { execute: [oidc.allowInsecureRequests] },
  );
  return oidc.clientCredentialsGrant(config, { scope: "acme" });
}

describe("a private_key_jwt client whose keys are at its jwks_uri", () => {
  it("fetches the set at the first assertion and serves the next ones from the cache", async () => {
    expect((await clientCredentials(first)).access_token).toBeTruthy();
    expect((await clientCredentials(first)).access_token).toBeTruthy();
    expect(keys.fetches).toBe(1);
  });

  it("does not fetch again for a kid it does not know within the floor, however many assertions name one", async () => {
    keys.publish([first.publicJwk, second.publicJwk], "public, max-age=600");
    for (const kid of ["made-up-1", "made-up-2", second.kid]) {
      const answer = await postForm(
        `${op.url}/connect/token`,
        assertionForm(await signAssertion(second, "remote-key-client", op.issuer, { header: { kid } })),
      );
      expect(answer.status).toBe(401);
    }
    expect(keys.fetches).toBe(1);
    expect(eventsOf(events, "client.authentication_failed").at(-1)).toMatchObject({
      client_id: "remote-key-client",
      reason: "no_matching_key",
    });
  });

  it("fetches again when the client's new key is named after the floor, and accepts it", async () => {
    ahead = 61;
    const tokens = await clientCredentials(second);
    expect(tokens.access_token).toBeTruthy();
    expect(keys.fetches).toBe(2);
    expect(eventsOf(events, "client.authenticated").at(-1)).toEqual({
      type: "client.authenticated",
      client_id: "remote-key-client",
      method: "private_key_jwt",
      kid: second.kid,
    });
  });

  it("keeps using the cached set when the key server fails after the set went stale", async () => {
    keys.fail(503);
    ahead = 61 + 601;
    expect((await clientCredentials(second)).access_token).toBeTruthy();
    expect((await clientCredentials(first)).access_token).toBeTruthy();
    // One attempt, then the floor: the failing server is not asked at every request.
    expect(keys.fetches).toBe(3);
  });

  it("drops a key the client removed once the set is fetched again", async () => {
    keys.publish([second.publicJwk], "public, max-age=600");
    ahead = 61 + 601 + 601;
    expect((await clientCredentials(second)).access_token).toBeTruthy();
    expect(keys.fetches).toBe(4);
    await expect(clientCredentials(first)).rejects.toMatchObject({ error: "invalid_client" });
  });
});
