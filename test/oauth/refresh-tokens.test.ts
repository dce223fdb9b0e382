/**
 * Refresh-token rotation on every store backend (two store instances — two nodes — on the network
 * ones): of any number of concurrent rotations of one token exactly one succeeds, and whenever a token
 * was presented more than once its whole family ends up revoked, access tokens included.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefreshTokens, type IssuedAccessToken } from "../../src/oauth/refresh-tokens.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { AccessTokenDenylist } from "../../src/tokens/access-token-denylist.ts";
import { availableBackends } from "../support/backends.ts";

const clock = () => Date.now();
const plannedToken = (): IssuedAccessToken => ({ jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 3600 });

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
      nodes.push({ store, denylist, tokens: new RefreshTokens(store, clock, denylist) });
    }
  });
  afterAll(async () => {
    for (const node of nodes) await node.store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const node = (pick: number) => nodes[pick % nodes.length]!;

  /** A family rotated `rotations` times in sequence: every token of it, oldest first, and every access token. */
  async function family(rotations: number): Promise<{ tokens: string[]; accessTokens: IssuedAccessToken[] }> {
    const first = plannedToken();
    const tokens = [
      await node(0).tokens.issue({ clientId: "demo-web", sub: "E10001", scopes: ["openid", "offline_access"], expiresAt: Date.now() + 600_000, accessTokens: [first] }),
    ];
    const accessTokens = [first];
    for (let i = 0; i < rotations; i++) {
      const planned = plannedToken();
      const rotation = await node(i).tokens.rotate(tokens.at(-1)!, planned);
      expect(rotation).toBeDefined();
      tokens.push(rotation!.token);
      accessTokens.push(planned);
    }
    return { tokens, accessTokens };
  }

  const allRevoked = async (accessTokens: IssuedAccessToken[]) => (await Promise.all(accessTokens.map((a) => node(0).denylist.isRevoked(a.jti)))).every(Boolean);

  it("rotates a token presented once, and keeps the family alive", async () => {
    const { tokens, accessTokens } = await family(3);
    expect(await node(1).tokens.find(tokens.at(-1)!)).toMatchObject({ accessTokens });
    for (const old of tokens.slice(0, -1)) expect(await node(0).tokens.find(old)).toBeUndefined();
    expect((await Promise.all(accessTokens.map((a) => node(0).denylist.isRevoked(a.jti)))).some(Boolean)).toBe(false);
  });

  it("gives exactly one of 2 to 20 concurrent rotations the successor, and then the family is revoked", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), fc.array(fc.nat({ max: 1 }), { minLength: 2, maxLength: 20 }), async (rotations, picks) => {
        const { tokens, accessTokens } = await family(rotations);
        const planned = picks.map(() => plannedToken());
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
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.nat(), fc.array(fc.nat({ max: 1 }), { minLength: 1, maxLength: 5 }), async (rotations, staleAt, picks) => {
        const { tokens, accessTokens } = await family(rotations);
        const stale = tokens[staleAt % (tokens.length - 1)]!;
        const newest = plannedToken();
        const [rotation] = await Promise.all([node(0).tokens.rotate(tokens.at(-1)!, newest), ...picks.map((pick) => node(pick).tokens.rotate(stale, plannedToken()))]);
        if (rotation !== undefined) expect(await node(1).tokens.find(rotation.token)).toBeUndefined();
        expect(await allRevoked([...accessTokens, ...(rotation ? [newest] : [])])).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});
