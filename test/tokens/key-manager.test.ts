import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { createLocalJWKSet, jwtVerify, SignJWT } from "jose";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createStore } from "../../src/stores/create-store.ts";
import { RedisStore } from "../../src/stores/redis-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { KeyManager, type KeyManagerOptions } from "../../src/tokens/key-manager.ts";
import { SecretBox } from "../../src/crypto/secret-box.ts";
import type { KeyRing, StoredKey } from "../../src/tokens/key-rotation.ts";
import { serviceUrl } from "../support/require-service.ts";
import { SIGNING_ALGS } from "../../src/crypto/signing-alg.ts";

const DAY = 86_400_000;
const logger = pino({ level: "silent" });
const policy = { rotateEvery: 10 * DAY, announceFor: DAY, retainFor: DAY };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function embeddedStore(dataDir = mkdtempSync(join(tmpdir(), "keys-"))): Promise<{ store: Store; dataDir: string }> {
  const store = await createStore("embedded", { dataDir, logger });
  cleanups.push(() => store.close());
  return { store, dataDir };
}

const box = new SecretBox("a-test-encryption-key-of-at-least-32-characters");
const rsaPem = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
const ecPem = () => generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();

async function open(store: Store, clock: () => number, extra: Partial<KeyManagerOptions> = {}) {
  const manager = await KeyManager.open({ store, clock, logger, modulusLength: 2048, policy, box, ...extra });
  cleanups.push(() => manager.close());
  return manager;
}

/** The published RS256 kids: each algorithm runs the same lifecycle with keys of its own (the ES256 and PS256 ones are checked apart). */
const kids = (m: KeyManager) => m.keys.jwks.keys.filter((k) => k.alg === "RS256").map((k) => k.kid);
const signingKids = (m: KeyManager) => SIGNING_ALGS.map((alg) => m.keys.signingKey(alg).kid);

describe("signing key manager", () => {
  it("generates one current key per algorithm on first start and keeps them across a restart", async () => {
    const { store, dataDir } = await embeddedStore();
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await open(store, () => 0);
    expect(first.keys.jwks.keys.map((k) => k.alg)).toEqual(["RS256", "PS256", "ES256"]);
    expect(first.keys.algorithms).toEqual(["RS256", "PS256", "ES256"]);
    expect(first.keys.signing.kid).toBe(first.keys.signingKey("RS256").kid);
    const signing = signingKids(first);
    expect(new Set(signing).size).toBe(3);
    await store.close();

    const { store: reopened } = await embeddedStore(dataDir);
    const second = await open(reopened, () => 1000);
    expect(signingKids(second)).toEqual(signing);
  });

  it("keeps generated private keys in the store only sealed, and refuses a ring sealed under another key", async () => {
    const { store } = await embeddedStore();
    const manager = await open(store, () => 0);
    const ring = (await store.namespace<KeyRing>("keys").get("signing-keys"))!;
    expect(JSON.stringify(ring)).not.toContain("PRIVATE KEY");
    expect(ring.keys).toHaveLength(3);
    for (const key of ring.keys) expect(key.sealedPkcs8).toMatch(/^v1\./);
    manager.close();
    const otherBox = new SecretBox("another-encryption-key-of-at-least-32-characters");
    await expect(KeyManager.open({ store, clock: () => 0, logger, modulusLength: 2048, policy, box: otherBox })).rejects.toThrow();
  });

  it("announces, promotes and finally drops keys as the clock moves", async () => {
    const { store } = await embeddedStore();
    let now = 0;
    const manager = await open(store, () => now);
    const original = manager.keys.signing.kid;

    now = 9 * DAY; // one announce period before rotation: a next key is published, not signing
    await manager.sync();
    expect(kids(manager)).toHaveLength(2);
    expect(manager.keys.signing.kid).toBe(original);
    const next = kids(manager).find((k) => k !== original)!;

    now = 10 * DAY; // rotation: next signs, the old key stays published (retired)
    await manager.sync();
    expect(manager.keys.signing.kid).toBe(next);
    expect(kids(manager)).toContain(original);

    now = 11 * DAY; // retained long enough for everything it signed to expire
    await manager.sync();
    expect(kids(manager)).toEqual([next]);
  });

  it("reports each lifecycle step it applies to onRotated: generated, announced, promoted and retired", async () => {
    const { store } = await embeddedStore();
    let now = 0;
    const steps: Array<[string, string]> = [];
    const manager = await open(store, () => now, { onRotated: (kid, status) => steps.push([kid, status]) });
    const first = signingKids(manager);
    expect(steps).toEqual(first.map((kid) => [kid, "current"]));

    now = 9 * DAY;
    await manager.sync();
    const next = manager.keys.jwks.keys.filter((k) => !first.includes(k.kid)).map((k) => k.kid);
    expect(next).toHaveLength(3);
    expect(steps.slice(3)).toEqual(next.map((kid) => [kid, "next"]));

    now = 9 * DAY + 1000; // nothing due: nothing reported
    await manager.sync();
    expect(steps).toHaveLength(6);

    now = 10 * DAY;
    await manager.sync();
    expect(steps.slice(6).sort()).toEqual([...first.map((kid) => [kid, "retired"]), ...next.map((kid) => [kid, "current"])].sort());
    expect(signingKids(manager)).toEqual(next);

    // A second node reading the ring it did not change reports nothing: each step is reported once, by the node that applied it.
    const other: string[] = [];
    await open(store, () => now, { onRotated: (kid) => other.push(kid) });
    expect(other).toEqual([]);
  });

  it("keeps publishing its keys as retired when the store loses the ring, until what they signed has expired", async () => {
    const { store } = await embeddedStore();
    let now = 5 * DAY;
    const manager = await open(store, () => now);
    const lost = manager.keys.signing.kid;
    await store.namespace("keys").delete("signing-keys"); // as after a Redis FLUSHALL

    now += 1000;
    await manager.sync();
    expect(manager.keys.signing.kid).not.toBe(lost);
    expect(kids(manager)).toContain(lost);
    expect(manager.keys.publicKey(lost)).toBeDefined();
    // Written back to the store, so every other node (and one started now) publishes it too.
    const ring = (await store.namespace<KeyRing>("keys").get("signing-keys"))!;
    expect(ring.keys.find((k) => k.kid === lost)).toMatchObject({ status: "retired", retiredAt: now });
    const other = await open(store, () => now);
    expect(kids(other)).toEqual(kids(manager));

    now += policy.retainFor - 1; // still inside the longest token lifetime
    await manager.sync();
    expect(kids(manager)).toContain(lost);
    now += 1; // everything it signed has expired
    await manager.sync();
    expect(kids(manager)).toEqual([manager.keys.signing.kid]);
  });

  it("adds its lost keys to a ring that a node started on the empty store has written meanwhile", async () => {
    const { store } = await embeddedStore();
    const now = 5 * DAY;
    const survivor = await open(store, () => now);
    const lost = survivor.keys.signing.kid;
    await store.namespace("keys").delete("signing-keys");
    const restarted = await open(store, () => now); // a node (re)started on the empty store: it knows no old key
    expect(kids(restarted)).not.toContain(lost);

    await survivor.sync();
    expect(survivor.keys.signing.kid).toBe(restarted.keys.signing.kid); // one current key for the deployment
    expect(kids(survivor)).toContain(lost);
    await restarted.sync(); // its next periodic re-read
    expect(kids(restarted).sort()).toEqual(kids(survivor).sort());
  });

  it("does not write back a key an operator unpublished, and forgets the kid once its tokens have expired", async () => {
    const { store } = await embeddedStore();
    let now = 0;
    const manager = await open(store, () => now);
    const first = manager.keys.signing.kid;
    now = 9 * DAY;
    await manager.sync(); // a next key is announced
    const records = store.namespace<KeyRing>("keys");
    const ring = (await records.get("signing-keys"))!;
    const next = ring.keys.find((k) => k.status === "next" && k.alg === "RS256")!;
    const others = ring.keys.filter((k) => k.alg !== "RS256");
    // What `portcullis keys retire FIRST --unpublish` writes: the next key signs, the first is gone and remembered.
    await records.set("signing-keys", {
      keys: [{ ...next, status: "current", activatedAt: now }, ...others],
      unpublished: [{ kid: first, unpublishedAt: now }],
    });

    now += 1000;
    await manager.sync(); // this node signed with the first key: without the record it would write it back as lost
    expect(kids(manager)).toEqual([next.kid]);
    expect((await records.get("signing-keys"))!.keys.map((k) => k.kid)).toEqual([next.kid, ...others.map((k) => k.kid)]);

    now += policy.retainFor;
    await manager.sync();
    expect((await records.get("signing-keys"))!.unpublished).toBeUndefined();
  });

  it("does not bring back a key that rotation retired and pruned", async () => {
    const { store } = await embeddedStore();
    let now = 0;
    const manager = await open(store, () => now);
    const original = manager.keys.signing.kid;
    for (now of [9 * DAY, 10 * DAY, 11 * DAY]) await manager.sync();
    expect(kids(manager)).not.toContain(original);
    now = 11 * DAY + 1;
    await manager.sync();
    expect(kids(manager)).not.toContain(original);
  });

  it("uses static keys from config as they are and generates nothing", async () => {
    const { store } = await embeddedStore();
    const manager = await open(store, () => 0, {
      staticKeys: [
        { kid: "ops-2026-a", status: "retired", private_key_pem: rsaPem() },
        { kid: "ops-2026-b", status: "current", private_key_pem: rsaPem() },
        { kid: "ops-2026-c", status: "next", private_key_pem: rsaPem() },
      ],
    });
    expect(manager.keys.signing.kid).toBe("ops-2026-b");
    expect(kids(manager)).toEqual(["ops-2026-a", "ops-2026-b", "ops-2026-c"]);
    expect(await store.namespace("keys").get("signing-keys")).toBeUndefined();
  });

  it("keeps a ring written before there were several algorithms working, and gives it the missing ones", async () => {
    const { store } = await embeddedStore();
    const now = 5 * DAY;
    // The previous version's ring: RS256 keys with no alg recorded, sealed as it sealed them.
    const legacy = (kid: string, status: "current" | "retired", dates: Partial<StoredKey>) => {
      const pem = rsaPem();
      const stored: StoredKey = { kid, status, sealedPkcs8: box.seal(pem, `signing-key:${kid}`), createdAt: 0, ...dates };
      return { stored, privateKey: createPrivateKey(pem) };
    };
    const retired = legacy("legacy-retired", "retired", { activatedAt: 0, retiredAt: now - 1000 });
    const current = legacy("legacy-current", "current", { activatedAt: now - 1000 });
    const legacyRing: KeyRing = {
      keys: [retired.stored, current.stored],
      unpublished: [{ kid: "legacy-gone", unpublishedAt: now - 1000 }],
    };
    const records = store.namespace<KeyRing>("keys");
    await records.set("signing-keys", legacyRing);
    // Tokens the previous version issued with each: they must keep verifying against the new JWKS.
    const issued = await Promise.all(
      [retired, current].map((k) =>
        new SignJWT({ sub: "E10001" }).setProtectedHeader({ alg: "RS256", kid: k.stored.kid, typ: "at+jwt" }).sign(k.privateKey),
      ),
    );

    const manager = await open(store, () => now);
    expect(manager.keys.signing.kid).toBe("legacy-current");
    expect(manager.keys.algorithms).toEqual(["RS256", "PS256", "ES256"]);
    for (const token of issued) {
      const { protectedHeader } = await jwtVerify(token, createLocalJWKSet(manager.keys.jwks), { algorithms: ["RS256"] });
      expect(manager.keys.jwks.keys.find((k) => k.kid === protectedHeader.kid)).toMatchObject({ alg: "RS256", kty: "RSA", use: "sig" });
    }
    // The old keys stay exactly as stored (no rewrite that an older node could misread); the new ones say their alg and sign at once.
    const migrated = (await records.get("signing-keys"))!;
    expect(migrated.keys.slice(0, 2)).toEqual(legacyRing.keys);
    expect(migrated.keys.slice(2).map((k) => [k.alg, k.status])).toEqual([
      ["PS256", "current"],
      ["ES256", "current"],
    ]);
    expect(migrated.unpublished).toEqual(legacyRing.unpublished);
    // Another node opening the migrated ring generates nothing more: one signing key per algorithm for the deployment.
    const other = await open(store, () => now);
    expect(signingKids(other)).toEqual(signingKids(manager));
    expect((await records.get("signing-keys"))!.keys).toHaveLength(4);
  });

  it("takes static keys of each algorithm: RSA is RS256 unless it says PS256, P-256 is ES256", async () => {
    const { store } = await embeddedStore();
    const manager = await open(store, () => 0, {
      staticKeys: [
        { kid: "rs", status: "current", private_key_pem: rsaPem() },
        { kid: "ps", status: "current", alg: "PS256", private_key_pem: rsaPem() },
        { kid: "es", status: "current", private_key_pem: ecPem() },
      ],
    });
    expect(manager.keys.jwks.keys.map((k) => [k.kid, k.alg, k.kty, k.use])).toEqual([
      ["rs", "RS256", "RSA", "sig"],
      ["ps", "PS256", "RSA", "sig"],
      ["es", "ES256", "EC", "sig"],
    ]);
    expect(manager.keys.algorithms).toEqual(["RS256", "PS256", "ES256"]);

    const rsaOnly = await open(store, () => 0, { staticKeys: [{ kid: "rs", status: "current", private_key_pem: rsaPem() }] });
    expect(rsaOnly.keys.algorithms).toEqual(["RS256"]);
    expect(() => rsaOnly.keys.signingKey("ES256")).toThrow(/no current signing key for ES256/);
  });

  it("refuses a static key that cannot sign the algorithm it declares", async () => {
    const { store } = await embeddedStore();
    await expect(
      KeyManager.open({
        store,
        clock: () => 0,
        logger,
        modulusLength: 2048,
        policy,
        box,
        staticKeys: [{ kid: "x", status: "current", alg: "RS256", private_key_pem: ecPem() }],
      }),
    ).rejects.toThrow(/EC P-256 key, which signs ES256, not RS256/);
    await expect(
      KeyManager.open({
        store,
        clock: () => 0,
        logger,
        modulusLength: 2048,
        policy,
        box,
        staticKeys: [{ kid: "x", status: "current", alg: "ES256", private_key_pem: rsaPem() }],
      }),
    ).rejects.toThrow(/RSA key, which signs RS256 or PS256, not ES256/);
  });

  const redisUrl = serviceUrl("redis");
  it.skipIf(!redisUrl)("lets exactly one of several processes racing on first start create the key ring (Redis)", async () => {
    const prefix = `keys-race-${Date.now()}`;
    const stores = await Promise.all([0, 1, 2].map(() => RedisStore.open({ url: redisUrl!, keyPrefix: `${prefix}:` })));
    for (const s of stores) cleanups.push(() => s.close());
    const managers = await Promise.all(stores.map((s) => open(s, () => 0)));
    const signing = new Set(managers.map((m) => signingKids(m).join(" ")));
    expect(signing.size).toBe(1);
    expect(managers.every((m) => m.keys.jwks.keys.length === 3)).toBe(true);
  });
});
