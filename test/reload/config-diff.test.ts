import { CORE_CONFIG_FILES } from "../../src/config/config-files.ts";
import { describe, expect, it } from "vitest";
import { diffConfig } from "../../src/reload/config-diff.ts";
import { formatConfigDiff } from "../../src/reload/format-config-diff.ts";

describe("diffConfig", () => {
  it("names list entries by their identifying key, so one added client is one change", () => {
    const before = {
      clients: [
        { client_id: "a", name: "A" },
        { client_id: "b", name: "B", redirect_uris: ["x"] },
      ],
    };
    const after = {
      clients: [
        { client_id: "new", name: "N" },
        { client_id: "a", name: "A" },
        { client_id: "b", name: "B2", redirect_uris: ["x", "y"] },
      ],
    };
    expect(diffConfig(before, after)).toEqual([
      { kind: "changed", path: "clients[b].name", before: "B", after: "B2" },
      { kind: "changed", path: "clients[b].redirect_uris", before: ["x"], after: ["x", "y"] },
      { kind: "added", path: "clients[new]", after: { client_id: "new", name: "N" } },
    ]);
  });

  it("compares maps key by key, and anything else as one value", () => {
    expect(diffConfig({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: 1 }, d: [2], e: "x" })).toEqual([
      { kind: "removed", path: "a.c", before: 2 },
      { kind: "changed", path: "d", before: [1], after: [2] },
      { kind: "added", path: "e", after: "x" },
    ]);
    expect(diffConfig({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe("formatConfigDiff", () => {
  it("lists the changes per file, hides secrets, and marks what a reload refuses", () => {
    const running = new Map([
      ["clients.yaml", "clients:\n  - client_id: web\n    name: Web\n    client_secret_hash: sha256:aa\n"],
      ["provider.yaml", "issuer: http://a\n"],
      ["login.yaml", "methods: { password: {} }\nlogin_types: { Old: { flow: two_factor } }\n"],
    ]);
    const next = new Map([
      ["clients.yaml", "clients:\n  - client_id: web\n    name: Web 2\n    client_secret_hash: sha256:bb\n"],
      ["provider.yaml", "issuer: http://b\n"],
      ["login.yaml", "methods: { password: {}, totp: {} }\nlogin_types: { New: { flow: two_factor, methods: [password] } }\n"],
    ]);
    expect(formatConfigDiff(running, next, CORE_CONFIG_FILES)).toEqual([
      "provider.yaml",
      '  ~ issuer: "http://a" → "http://b"  (restart needed)',
      "clients.yaml",
      '  ~ clients[web].name: "Web" → "Web 2"',
      "  ~ clients[web].client_secret_hash: (hidden) → (hidden)",
      "login.yaml",
      "  + methods.totp  (restart needed)",
      "  - login_types.Old",
      "  + login_types.New",
    ]);
    expect(formatConfigDiff(running, running, CORE_CONFIG_FILES)).toEqual([]);
  });

  it("shows lifetimes, which are durations even when named after a token; hides a token that is one", () => {
    const running = new Map([["provider.yaml", "lifetimes: { access_token: 1h }\nmetrics: { token: one-token-value }\n"]]);
    const next = new Map([["provider.yaml", "lifetimes: { access_token: 2h }\nmetrics: { token: another-token-value }\n"]]);
    expect(formatConfigDiff(running, next, CORE_CONFIG_FILES)).toEqual([
      "provider.yaml",
      '  ~ lifetimes.access_token: "1h" → "2h"  (restart needed)',
      "  ~ metrics.token: (hidden) → (hidden)  (restart needed)",
    ]);
  });
});
