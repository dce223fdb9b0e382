/**
 * SSO sessions under concurrency on every store backend (two store instances — two nodes — on the
 * network ones): clients signing in at the same moment are all recorded for single sign-out, and a
 * logout racing a use of the session is never undone by it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SsoSessions } from "../../src/sessions/sso-sessions.ts";
import { UserLedger } from "../../src/user-ledger/user-ledger.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { availableBackends } from "../support/backends.ts";

const lifetimes = { idle: 3600, absolute: 7200 };
const login = { sub: "E10001", authTime: Math.floor(Date.now() / 1000), amr: ["password"], acr: "1fa" };

describe.each(availableBackends())("SSO sessions under concurrency on the $name store", ({ name, url }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "portcullis-sessions-"));
  const stores: Store[] = [];
  const nodes: SsoSessions[] = [];
  beforeAll(async () => {
    for (let i = 0; i < (name === "embedded" ? 1 : 2); i++) {
      const store = await createStore(url, { dataDir, logger: pino({ level: "silent" }) });
      stores.push(store);
      nodes.push(new SsoSessions(store, () => Date.now(), lifetimes, new UserLedger(store, () => Date.now())));
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const node = (i: number) => nodes[i % nodes.length]!;

  it("records every client of simultaneous sign-ins for single sign-out", async () => {
    for (let run = 0; run < 20; run++) {
      const { cookie, session } = await node(0).create(login);
      const clients = ["web", "spa", "third", "fourth"];
      // Each sign-in read the session before any of the others wrote it.
      await Promise.all(clients.map((client, i) => node(i).touch(cookie, session, client)));
      const ended = await node(1).destroy(cookie);
      expect(new Set(ended!.clients), `run ${run}`).toEqual(new Set(clients));
    }
  });

  it("never brings a session back that a logout ended while it was being used", async () => {
    // The worst interleaving, made certain: the use read the session before the logout, and writes after it.
    const { cookie, session } = await node(0).create(login);
    await node(1).destroy(cookie);
    await node(0).touch(cookie, session, "late-client");
    expect(await node(0).find(cookie)).toBeUndefined();
    // And any interleaving the backends produce.
    for (let run = 0; run < 30; run++) {
      const { cookie, session } = await node(0).create(login);
      await Promise.all([node(0).touch(cookie, session, `client-${run}`), node(1).destroy(cookie)]);
      expect(await node(0).find(cookie), `run ${run}`).toBeUndefined();
      expect(await node(1).find(cookie), `run ${run}`).toBeUndefined();
    }
  });
});
