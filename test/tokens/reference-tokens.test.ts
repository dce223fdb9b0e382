import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storeKeyHash } from "../../src/crypto/store-key-hash.ts";
import { OAuthError } from "../../src/errors/oauth-error.ts";
import { ScopeRegistry } from "../../src/scopes/scope-registry.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { RecordStore, Store } from "../../src/stores/store.ts";
import { StoreUnavailableError } from "../../src/stores/store-unavailable-error.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { AccessTokenIssuer, type AccessTokenRequest } from "../../src/tokens/access-token.ts";
import { AccessTokenVerifier } from "../../src/tokens/access-token-verifier.ts";
import { JwsSigner } from "../../src/tokens/jws-signer.ts";
import { KeySet } from "../../src/tokens/key-set.ts";
import { looksLikeReferenceToken, ReferenceTokens } from "../../src/tokens/reference-tokens.ts";

/**
 * Reference access tokens through the one verifier every endpoint uses: the same claims as a JWT, valid
 * while the record lives and the clock is before exp, stored only under the handle's hash, and a store
 * outage is an outage (never a token reported invalid).
 */
const ISSUER = "https://op.example";
const START = 1_800_000_000_000;
let now = START;
const clock = () => now;
const keys = new KeySet([{ kid: "k1", status: "current", privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey }]);
const scopes = new ScopeRegistry({
  identity_scopes: [{ name: "openid", claims: ["sub"] }],
  api_resources: [{ name: "acme-api", scopes: [{ name: "acme" }] }],
});

const dataDir = mkdtempSync(join(tmpdir(), "reference-tokens-"));
let store: Store;
let references: ReferenceTokens;
let denylist: AccessTokenDenylist;
let issuer: AccessTokenIssuer;
let verifier: AccessTokenVerifier;

const request = (overrides: Partial<AccessTokenRequest> = {}): AccessTokenRequest => ({
  sub: "E10001",
  clientId: "demo-portal",
  scopes: ["openid", "acme"],
  resources: scopes,
  lifetime: 3600,
  extra: { auth_time: START / 1000 - 5, amr: ["password", "totp", "mfa"], acr: "2fa", sid: "sid-1" },
  ...overrides,
});

/** The invalid_token description a rejected token gets (anything else fails the test). */
async function rejection(token: string, by = verifier): Promise<string> {
  const err = await by.verify(token).then(
    () => new Error(`accepted ${token}`),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  expect(err).toMatchObject({ status: 401, error: "invalid_token" });
  return (err as OAuthError).description;
}

beforeAll(async () => {
  store = await createStore("embedded", { dataDir, logger: pino({ level: "silent" }) });
  references = new ReferenceTokens(store, clock);
  denylist = new AccessTokenDenylist(store, clock);
  issuer = new AccessTokenIssuer(new JwsSigner(() => keys), ISSUER, clock, references);
  verifier = new AccessTokenVerifier(() => keys, ISSUER, clock, denylist, references);
});
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(() => {
  now = START;
});

describe("reference access tokens", () => {
  it("are 43-character opaque handles that verify to exactly the claims the JWT of the same request carries", async () => {
    const jti = "jti-same";
    const reference = await issuer.issueAs("reference", request({ jti }));
    const jwt = await issuer.issueAs("jwt", request({ jti }));
    expect(reference.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(looksLikeReferenceToken(reference.token)).toBe(true);
    expect(looksLikeReferenceToken(jwt.token)).toBe(false);
    expect(jwt.token.split(".")).toHaveLength(3);
    const fromReference = await verifier.verify(reference.token);
    expect(fromReference).toEqual(await verifier.verify(jwt.token));
    expect(fromReference).toEqual({
      iss: ISSUER,
      sub: "E10001",
      aud: ["acme-api", `${ISSUER}/connect/userinfo`],
      iat: START / 1000,
      exp: START / 1000 + 3600,
      jti,
      client_id: "demo-portal",
      scope: "openid acme",
      auth_time: START / 1000 - 5,
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
      sid: "sid-1",
    });
  });

  it("are stored only under the handle's SHA-256: neither the record's key nor the data directory holds the handle", async () => {
    const { token } = await issuer.issueAs("reference", request());
    const records = store.namespace("referenceTokens");
    expect(await records.get(token)).toBeUndefined();
    expect(await records.get(storeKeyHash(token))).toMatchObject({ sub: "E10001", client_id: "demo-portal" });
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), "latin1"))
      .join("\n");
    expect(files).toContain(storeKeyHash(token));
    expect(files).not.toContain(token);
  });

  it("expire at exp by the provider's clock, even while the store still holds the record", async () => {
    const { token } = await issuer.issueAs("reference", request({ lifetime: 60 }));
    now = START + 59_000;
    expect((await verifier.verify(token)).sub).toBe("E10001");
    now = START + 60_000;
    expect(await rejection(token)).toBe("the token has expired");
  });

  it("end when their record is revoked (deleted), and when their jti is denylisted as a reused code or revoked family does", async () => {
    const deleted = await issuer.issueAs("reference", request());
    await references.revoke(deleted.token);
    expect(await rejection(deleted.token)).toBe("the token is unknown, expired or revoked");

    const denied = await issuer.issueAs("reference", request());
    await denylist.revoke(denied.claims.jti, denied.claims.exp);
    expect(await rejection(denied.token)).toBe("the token has been revoked");
  });

  it("are refused when another issuer's provider wrote the record", async () => {
    const { token } = await issuer.issueAs("reference", request());
    const elsewhere = new AccessTokenVerifier(() => keys, "https://other.example", clock, denylist, references);
    expect(await rejection(token, elsewhere)).toBe("the token is unknown, expired or revoked");
  });

  it("never accept garbage of either shape: a handle we never issued, and a JWT-looking string", async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), async (handle) => {
        expect(await rejection(handle)).toBe("the token is unknown, expired or revoked");
      }),
      { numRuns: 50 },
    );
    const { token } = await issuer.issueAs("reference", request());
    // One character off: still a handle's shape, but not ours.
    const changed = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(await rejection(changed)).toBe("the token is unknown, expired or revoked");
    // A JWT's shape without our kid or signature, and near-handles of neither shape: the JWT rules refuse them.
    expect(await rejection("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJFMTAwMDEifQ.c2lnbmF0dXJl")).toBe("the token was not signed by this issuer");
    for (const garbage of [`${token}.${token}.${token}`, `${token}=`, `${token}x`, token.slice(1), ""]) {
      expect(await rejection(garbage)).toBe("the token is malformed");
    }
  });
});

describe("a reference token while the store is down", () => {
  /** A store whose every operation fails as an unreachable backend's does. */
  const downStore: Store = {
    backend: "redis",
    namespace: <T>() => {
      const fail = () => Promise.reject(new StoreUnavailableError("redis"));
      return { get: fail, set: fail, delete: fail, take: fail, add: fail, increment: fail } as unknown as RecordStore<T>;
    },
    declare: () => {},
    ping: () => Promise.reject(new StoreUnavailableError("redis")),
    close: () => Promise.resolve(),
  };

  it("is neither issued nor judged: issuing and verifying fail with StoreUnavailableError (the HTTP layer's 503), not invalid_token", async () => {
    const downReferences = new ReferenceTokens(downStore, clock);
    const downIssuer = new AccessTokenIssuer(new JwsSigner(() => keys), ISSUER, clock, downReferences);
    const downVerifier = new AccessTokenVerifier(() => keys, ISSUER, clock, new AccessTokenDenylist(downStore, clock), downReferences);
    await expect(downIssuer.issueAs("reference", request())).rejects.toBeInstanceOf(StoreUnavailableError);
    const { token } = await issuer.issueAs("reference", request());
    await expect(downVerifier.verify(token)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
