import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceUrl } from "../support/require-service.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { dpopKey, dpopProof } from "../support/dpop-proof.ts";

/**
 * Two provider nodes of one deployment (same issuer, same store, same encryption key) with server
 * nonces required: a DPoP proof accepted by one node is a replay on the other, on Redis and on
 * PostgreSQL alike, and a nonce handed out by one node is good on the other without any shared record.
 */
const BACKENDS = (["redis", "postgres"] as const).map((name) => ({ name, url: serviceUrl(name) }));

describe.each(BACKENDS)("DPoP across two nodes sharing $name", ({ name, url }) => {
  let a: TestProvider;
  let b: TestProvider;
  const service = { authorization: basic("demo-service", "demo-service-secret") };

  beforeAll(async () => {
    if (url === undefined) throw new Error(`${name} is not available`);
    const storeUrl = `${url}${url.includes("?") ? "&" : "?"}prefix=dpop-nodes-${Date.now()}`;
    const edits = { "provider.yaml": { "dpop.require_nonce": true } };
    a = await startTestProvider({ storeUrl, edits });
    b = await startTestProvider({ storeUrl, edits, issuer: a.issuer });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const tokenRequest = (node: TestProvider, dpop: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: "client_credentials" }, { ...service, dpop });

  it("asks for a nonce on one node, takes that nonce on the other, and refuses there the proof the first accepted", async () => {
    const key = await dpopKey();
    const htu = `${a.issuer}/connect/token`;
    const first = await tokenRequest(a, await dpopProof(key, { htm: "POST", htu }));
    expect({ status: first.status, error: first.json?.error }).toEqual({ status: 400, error: "use_dpop_nonce" });
    const nonce = first.headers.get("dpop-nonce")!;
    expect(nonce).toMatch(/^[\w-]{43}$/);

    const proof = await dpopProof(key, { htm: "POST", htu, nonce });
    const onB = await tokenRequest(b, proof);
    expect(onB.status, onB.text).toBe(200);
    expect(onB.json?.token_type).toBe("DPoP");
    // Every answer hands out the nonce to use next.
    expect(onB.headers.get("dpop-nonce")).toMatch(/^[\w-]{43}$/);

    const replayOnA = await tokenRequest(a, proof);
    expect({ status: replayOnA.status, error: replayOnA.json?.error }).toEqual({ status: 400, error: "invalid_dpop_proof" });
    const replayOnB = await tokenRequest(b, proof);
    expect(replayOnB.json?.error).toBe("invalid_dpop_proof");
  });

  it("lets openid-client follow the nonce challenge on one node and use the token's binding on the other", async () => {
    const execute = [oidc.allowInsecureRequests];
    const onA = await oidc.discovery(new URL(a.issuer), "demo-service", undefined, oidc.ClientSecretBasic("demo-service-secret"), {
      execute,
    });
    const key = await dpopKey();
    const tokens = await oidc.clientCredentialsGrant(onA, { scope: "acme" }, { DPoP: oidc.getDPoPHandle(onA, key) });
    expect(tokens.token_type).toBe("dpop");
    const introspected = await postForm(
      `${b.url}/connect/introspect`,
      { token: tokens.access_token },
      { authorization: basic("acme-api", "acme-api-secret") },
    );
    expect(introspected.json).toMatchObject({ active: true, token_type: "DPoP", cnf: { jkt: key.jkt } });
  });

  it("asks for a nonce at a resource too (401 with a DPoP challenge), which openid-client follows on the other node", async () => {
    const execute = [oidc.allowInsecureRequests];
    const tool = await oidc.discovery(
      new URL(a.issuer),
      "demo-security-tool",
      undefined,
      oidc.ClientSecretBasic("demo-security-tool-secret"),
      {
        execute,
      },
    );
    const key = await dpopKey();
    const { access_token } = await oidc.clientCredentialsGrant(
      tool,
      { scope: "portcullis:admin" },
      { DPoP: oidc.getDPoPHandle(tool, key) },
    );
    const sessions = `${a.issuer}/admin/users/alice/sessions`;
    const withoutNonce = await send(`${b.url}/admin/users/alice/sessions`, {
      headers: {
        authorization: `DPoP ${access_token}`,
        dpop: await dpopProof(key, { htm: "GET", htu: sessions, accessToken: access_token }),
      },
    });
    expect({ status: withoutNonce.status, error: withoutNonce.json?.error }).toEqual({ status: 401, error: "use_dpop_nonce" });
    expect(withoutNonce.headers.get("www-authenticate")).toMatch(/^DPoP realm="portcullis", error="use_dpop_nonce"/);
    expect(withoutNonce.headers.get("dpop-nonce")).toMatch(/^[\w-]{43}$/);

    // openid-client answers the challenge with the nonce it is handed (or one it learnt before) and gets through.
    const fresh = oidc.getDPoPHandle(tool, key);
    const res = await oidc.fetchProtectedResource(tool, access_token, new URL(sessions), "GET", undefined, undefined, { DPoP: fresh });
    expect(res.status).toBe(200);
    expect(res.headers.get("dpop-nonce")).toMatch(/^[\w-]{43}$/);
  });
});
