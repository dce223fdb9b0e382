/**
 * Interactions' second handle (link): an eID login's interaction is found again by the state its
 * upstream sends back, only by the browser that started it, and never after it completed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeKeyHash } from "../../src/crypto/store-key-hash.ts";
import { createStore } from "../../src/stores/create-store.ts";
import type { Store } from "../../src/stores/store.ts";
import { Interactions } from "../../src/runtime/interactions.ts";
import type { NewInteraction } from "../../src/runtime/interaction.ts";

const EID_LOGIN: NewInteraction = {
  kind: "eid",
  request: {
    clientId: "demo-web",
    redirectUri: "http://localhost:3001/callback",
    responseMode: "query",
    scopes: ["openid"],
    prompt: [],
    framed: false,
  },
  flowInput: { upstream: "dev-eid", options: {} },
  flowId: "login_type.eID",
  flowHash: "h",
};

describe("Interactions.link", () => {
  let store: Store;
  let dir: string;
  let interactions: Interactions;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "interactions-"));
    store = await createStore("embedded", { dataDir: dir, logger: pino({ level: "silent" }) });
    interactions = new Interactions(store, Date.now, 600);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the interaction by the linked key for its own browser only, and keeps the key only as a hash", async () => {
    const { interaction, browserCookie } = await interactions.create(EID_LOGIN);
    await interactions.link("upstream-state-1", interaction);
    expect(await interactions.findByLink("upstream-state-1", browserCookie)).toEqual(interaction);
    expect(await interactions.findByLink("upstream-state-1", "another-browser")).toBeUndefined();
    expect(await interactions.findByLink("upstream-state-1", undefined)).toBeUndefined();
    expect(await interactions.findByLink("upstream-state-2", browserCookie)).toBeUndefined();
    const links = store.namespace<string>("interactions");
    expect(await links.get("link:upstream-state-1")).toBeUndefined();
    expect(await links.get(`link:${storeKeyHash("upstream-state-1")}`)).toBe(interaction.id);
  });

  it("finds nothing once the interaction completed", async () => {
    const { interaction, browserCookie } = await interactions.create(EID_LOGIN);
    await interactions.link("upstream-state-1", interaction);
    expect(await interactions.finish(interaction.id)).toBe(true);
    expect(await interactions.findByLink("upstream-state-1", browserCookie)).toBeUndefined();
    expect(await interactions.finish(interaction.id)).toBe(false);
  });
});
