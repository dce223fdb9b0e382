/**
 * The ended-session markers behind `refresh_token_ends_with_session`, on every store backend: a logout
 * on one node is seen by a refresh on another, and on the embedded store after a restart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { randomToken } from "../../src/crypto/random-token.ts";
import type { Client } from "../../src/oauth/client-registry.ts";
import { EndedSessions } from "../../src/sessions/ended-sessions.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { availableBackends } from "../support/backends.ts";

const client = (offlineAccess: boolean, refreshTokenEndsWithSession: boolean) =>
  ({
    offlineAccess,
    refreshTokenEndsWithSession,
    lifetimes: { accessToken: 3600, idToken: 3600, refreshToken: 86_400, authorizationCode: 300 },
  }) as Client;

describe.each(availableBackends())("ended sessions on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-ended-"));
  const open: Store[] = [];
  const storeOf = async () => {
    const store = await createStore(url, { dataDir, logger: pino({ level: "silent" }) });
    open.push(store);
    return store;
  };
  afterAll(async () => {
    for (const store of open) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("tells every node, and a restarted embedded store, that a session has ended", async () => {
    const clients = [client(true, true), client(true, false)];
    const first = await storeOf();
    const sid = randomToken(16);
    await new EndedSessions(first, () => clients).record(sid);
    // The embedded store on the same directory again is a restart; a network store's second instance is another node.
    if (name === "embedded") await first.close();
    const ended = new EndedSessions(await storeOf(), () => clients);
    expect(await ended.hasEnded(sid)).toBe(true);
    expect(await ended.hasEnded(randomToken(16))).toBe(false);
  });

  it("keeps nothing when no client's refresh tokens end with the session", async () => {
    const store = open.at(-1)!;
    const sid = randomToken(16);
    const ended = new EndedSessions(store, () => [client(true, false), client(false, true)]);
    await ended.record(sid);
    expect(await ended.hasEnded(sid)).toBe(false);
  });
});
