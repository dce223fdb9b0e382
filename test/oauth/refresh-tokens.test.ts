/**
 * Refresh-token rotation on every store backend (two store instances — two nodes — on the network
 * ones): of any number of concurrent rotations of one token exactly one succeeds, and whenever a token
 * was presented more than once its whole family ends up revoked, access tokens included.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomToken } from "../../src/crypto/random-token.ts";
import { plannedAccessToken } from "../../src/http/grants/planned-access-token.ts";
import { RefreshTokens, type IssuedAccessToken, type RefreshGrant } from "../../src/oauth/refresh-tokens.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { UserLedger } from "../../src/user-ledger/user-ledger.ts";
import { availableBackends } from "../support/backends.ts";
import { embeddedStoreForSuite } from "../support/embedded-test-store.ts";

const clock = () => Date.now();
const plannedToken = (familyId: string): IssuedAccessToken => plannedAccessToken(clock, 3600, familyId);
const grantOf = (familyId: string, expiresAt = Date.now() + 600_000): RefreshGrant => ({
  clientId: "demo-web",
  sub: "E10001",
  scopes: ["openid", "offline_access"],
  familyId,
  expiresAt,
});

interface Node {
  store: Store;
  tokens: RefreshTokens;
  denylist: AccessTokenDenylist;
}

describe.each(availableBackends())("refresh-token rotation on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-refresh-"));
  const nodes: Node[] = [];
  beforeAll(async () => {
    const count = name === "embedded" ? 1 : 2;
    for (let i = 0; i < count; i++) {
      const store = await createStore(url, { dataDir, logger: pino({ level: "silent" }) });
      const denylist = new AccessTokenDenylist(store, clock);
      nodes.push({ store, denylist, tokens: new RefreshTokens(store, clock, denylist, new UserLedger(store, clock)) });
    }
  });
  afterAll(async () => {
    for (const node of nodes) await node.store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const node = (pick: number) => nodes[pick % nodes.length]!;

  /** A family rotated `rotations` times in sequence: every token of it, oldest first, and every access token. */
  async function family(rotations: number): Promise<{ familyId: string; tokens: string[]; accessTokens: IssuedAccessToken[] }> {
    const familyId = randomToken(16);
    const first = plannedToken(familyId);
    const tokens = [await node(0).tokens.issue(grantOf(familyId), first)];
    const accessTokens = [first];
    for (let i = 0; i < rotations; i++) {
      const planned = plannedToken(familyId);
      const rotation = await node(i).tokens.rotate(tokens.at(-1)!, planned);
      expect(rotation).toBeDefined();
      tokens.push(rotation!.token);
      accessTokens.push(planned);
    }
    return { familyId, tokens, accessTokens };
  }

  const allRevoked = async (accessTokens: IssuedAccessToken[]) =>
    (await Promise.all(accessTokens.map((a) => node(0).denylist.isRevoked(a.jti)))).every(Boolean);

  it("rotates a token presented once, and keeps the family alive", async () => {
    const { familyId, tokens, accessTokens } = await family(3);
    expect(await node(1).tokens.find(tokens.at(-1)!)).toEqual(grantOf(familyId, expect.any(Number)));
    for (const old of tokens.slice(0, -1)) expect(await node(0).tokens.find(old)).toBeUndefined();
    expect((await Promise.all(accessTokens.map((a) => node(0).denylist.isRevoked(a.jti)))).some(Boolean)).toBe(false);
  });

  it("gives exactly one of 2 to 20 concurrent rotations the successor, and then the family is revoked", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), fc.array(fc.nat({ max: 1 }), { minLength: 2, maxLength: 20 }), async (rotations, picks) => {
        const { familyId, tokens, accessTokens } = await family(rotations);
        const planned = picks.map(() => plannedToken(familyId));
        const outcomes = await Promise.all(picks.map((pick, i) => node(pick).tokens.rotate(tokens.at(-1)!, planned[i]!)));
        const won = outcomes.filter((o) => o !== undefined);
        expect(won).toHaveLength(1);
        expect(await node(0).tokens.find(won[0]!.token)).toBeUndefined();
        // Every access token of the family, the winner's included (the losers' were never issued).
        const winnersToken = planned[outcomes.findIndex((o) => o !== undefined)]!;
        expect(await allRevoked([...accessTokens, winnersToken])).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it("revokes the family when an already rotated token comes back, even while the newest is being rotated", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 5 }),
        async (rotations, staleAt, picks) => {
          const { familyId, tokens, accessTokens } = await family(rotations);
          const stale = tokens[staleAt % (tokens.length - 1)]!;
          const newest = plannedToken(familyId);
          const [rotation] = await Promise.all([
            node(0).tokens.rotate(tokens.at(-1)!, newest),
            ...picks.map((pick) => node(pick).tokens.rotate(stale, plannedToken(familyId))),
          ]);
          if (rotation !== undefined) expect(await node(1).tokens.find(rotation.token)).toBeUndefined();
          expect(await allRevoked([...accessTokens, ...(rotation ? [newest] : [])])).toBe(true);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("stores the same record after a hundred rotations as after one: nothing in a family grows with its refreshes", async () => {
    const { tokens } = await family(1);
    const afterOne = JSON.stringify(await node(0).tokens.find(tokens.at(-1)!));
    const { tokens: longer } = await family(100);
    const afterHundred = JSON.stringify(await node(1).tokens.find(longer.at(-1)!));
    // Family ids and expiry times are of fixed length: the records differ in nothing else.
    expect(afterHundred.length).toBe(afterOne.length);
  });

  it("keeps a token that is not rotated (a FAPI 2.0 client's) live on every node, any number of times at once, until it is revoked", async () => {
    const familyId = randomToken(16);
    const token = await node(0).tokens.issue(grantOf(familyId), plannedToken(familyId));
    const grant = (await node(1).tokens.find(token))!;
    const planned = Array.from({ length: 5 }, () => plannedToken(familyId));
    const kept = await Promise.all(planned.map((accessToken, i) => node(i).tokens.keep(token, accessToken, grant)));
    expect(kept.map((k) => k.token)).toEqual(planned.map(() => token));
    expect(await node(1).tokens.find(token)).toEqual(grant);
    // Presenting it again is no reuse: nothing is revoked.
    expect(await node(0).tokens.detectReuse(token)).toBe(false);
    expect((await Promise.all(planned.map((a) => node(0).denylist.isRevoked(a.jti)))).some(Boolean)).toBe(false);
    expect(await node(1).tokens.revoke(token, "demo-web")).toBe(true);
    expect(await node(0).tokens.find(token)).toBeUndefined();
    expect(await allRevoked(planned)).toBe(true);
  });

  it("revokes every access token of a family with the family, without a list of them", async () => {
    const { familyId, tokens, accessTokens } = await family(5);
    const other = await family(1);
    expect(await node(1).tokens.revoke(tokens.at(-1)!, "demo-web")).toBe(true);
    expect(await allRevoked([...accessTokens, plannedToken(familyId)])).toBe(true);
    expect((await Promise.all(other.accessTokens.map((a) => node(0).denylist.isRevoked(a.jti)))).some(Boolean)).toBe(false);
  });

  it("keeps a revoked family's access tokens revoked past the family's expiry while they are valid", async () => {
    const familyId = randomToken(16);
    // Issued in the family's last moments: the access token (1 h) outlives the family (3 s).
    const accessToken = plannedToken(familyId);
    const familyExpiry = Date.now() + 3_000;
    const token = await node(0).tokens.issue(grantOf(familyId, familyExpiry), accessToken);
    expect(await node(1).tokens.revoke(token, "demo-web")).toBe(true);
    while (Date.now() < familyExpiry + 1_000) await sleep(250);
    expect(await node(0).denylist.isRevoked(accessToken.jti)).toBe(true);
  });
});

describe("a refresh-token rotation cut short by a store failure", () => {
  const storeOfSuite = embeddedStoreForSuite("portcullis-refresh-fail-");

  it("leaves the presented token live when the store fails while writing the successor (the client retries with it)", async () => {
    const store = storeOfSuite();
    const denylist = new AccessTokenDenylist(store, clock);
    const familyId = randomToken(16);
    const token = await new RefreshTokens(store, clock, denylist, new UserLedger(store, clock)).issue(
      grantOf(familyId),
      plannedToken(familyId),
    );
    // The same store, except that writing a refresh token fails, as a store that goes down mid-rotation does.
    const failingTake: Store = {
      ...store,
      backend: store.backend,
      ping: () => store.ping(),
      close: () => store.close(),
      namespace: <T>(kind: Parameters<Store["namespace"]>[0]) => {
        const records = store.namespace<T>(kind);
        if (kind !== "refreshTokens") return records;
        return {
          ...records,
          get: records.get.bind(records),
          take: records.take.bind(records),
          delete: records.delete.bind(records),
          add: records.add.bind(records),
          increment: records.increment.bind(records),
          set: () => Promise.reject(new Error("store down")),
        };
      },
    };
    await expect(
      new RefreshTokens(failingTake, clock, denylist, new UserLedger(store, clock)).rotate(token, plannedToken(familyId)),
    ).rejects.toThrow("store down");
    const retried = await new RefreshTokens(store, clock, denylist, new UserLedger(store, clock)).rotate(token, plannedToken(familyId));
    expect(retried?.grant.familyId).toBe(familyId);
    expect(await denylist.isFamilyRevoked(familyId)).toBe(false);
  });
});
