import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availableBackends } from "../support/backends.ts";
import { postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { assertionForm, clientKeyPair, keyClient, signAssertion, type ClientKeyPair } from "../support/client-assertions.ts";

/**
 * A private_key_jwt assertion is single use across the nodes of one deployment (RFC 7523 §3 item 7):
 * two providers sharing a Redis, then a PostgreSQL, store. The second node refuses a jti the first
 * accepted, and of two nodes given the same assertion at once exactly one accepts it.
 */
const shared = availableBackends().filter((backend) => backend.name !== "embedded");

describe.each(shared)("client assertions on two nodes sharing one $name store", ({ url: storeUrl }) => {
  let a: TestProvider;
  let b: TestProvider;
  let key: ClientKeyPair;

  beforeAll(async () => {
    key = await clientKeyPair("ES256", "node-test");
    const edits = { "clients.yaml": { "clients.+0": keyClient("key-client", { jwks: [key.publicJwk] }) } };
    a = await startTestProvider({ storeUrl, edits });
    b = await startTestProvider({ storeUrl, edits, issuer: a.issuer });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const present = (node: TestProvider, assertion: string) => postForm(`${node.url}/connect/token`, assertionForm(assertion));

  it("refuses on the second node an assertion the first accepted, and on the first one the second accepted", async () => {
    const once = await signAssertion(key, "key-client", a.issuer);
    expect((await present(a, once)).status).toBe(200);
    const again = await present(b, once);
    expect(again.status).toBe(401);
    expect(again.json?.error).toBe("invalid_client");
    const other = await signAssertion(key, "key-client", a.issuer);
    expect((await present(b, other)).status).toBe(200);
    expect((await present(a, other)).status).toBe(401);
  });

  it("accepts an assertion presented to both nodes at once on exactly one of them", async () => {
    for (let round = 0; round < 5; round++) {
      const assertion = await signAssertion(key, "key-client", a.issuer);
      const answers = await Promise.all([present(a, assertion), present(b, assertion), present(a, assertion), present(b, assertion)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);
    }
  });
});
