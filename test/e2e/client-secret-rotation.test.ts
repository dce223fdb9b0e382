import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../src/audit/audit-event.ts";
import { hashSecret } from "../../src/crypto/secret-hash.ts";
import { collectAudit, eventsOf } from "../support/audited-login.ts";
import { rmSync } from "node:fs";
import { basic, copyConfig, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { portcullis } from "../support/run-cli.ts";

/**
 * A shared secret rotated without an outage (clients.yaml `client_secrets`): both secrets work until the
 * old one expires on the provider's (moved) clock, the audit trail names which one each request used,
 * and check-config warns of a secret about to expire.
 */
const OLD = "the-old-secret-of-rotating-client";
const NEW = "the-new-secret-of-rotating-client";
const fingerprint = (secret: string) => hashSecret(secret).slice(7, 15);
const START = Date.now();
/** When the old secret stops working: an hour after the test starts. */
const OLD_EXPIRES = new Date(START + 3_600_000).toISOString();

let op: TestProvider;
let events: AuditEvent[];
let now = START;

beforeAll(async () => {
  op = await startTestProvider({
    clock: () => now,
    edits: {
      "clients.yaml": {
        "clients.+0": {
          client_id: "rotating-client",
          type: "confidential",
          client_secrets: [{ hash: hashSecret(OLD), expires: OLD_EXPIRES }, { hash: hashSecret(NEW) }],
          grant_types: ["client_credentials"],
          allowed_scopes: ["acme"],
        },
      },
    },
  });
  events = collectAudit(op);
});
afterAll(() => op?.close());
beforeEach(() => {
  events.length = 0;
});

const withBasic = (secret: string) =>
  postForm(`${op.url}/connect/token`, { grant_type: "client_credentials" }, { authorization: basic("rotating-client", secret) });
const withPost = (secret: string) =>
  postForm(`${op.url}/connect/token`, { grant_type: "client_credentials", client_id: "rotating-client", client_secret: secret });

describe("a client with two secrets during a rotation", () => {
  it("accepts both before the old one expires, naming which one in the audit trail", async () => {
    expect((await withBasic(OLD)).status).toBe(200);
    expect((await withPost(NEW)).status).toBe(200);
    expect(eventsOf(events, "client.authenticated")).toEqual([
      { type: "client.authenticated", client_id: "rotating-client", method: "client_secret_basic", secret_fingerprint: fingerprint(OLD) },
      { type: "client.authenticated", client_id: "rotating-client", method: "client_secret_post", secret_fingerprint: fingerprint(NEW) },
    ]);
    expect(fingerprint(OLD)).not.toBe(fingerprint(NEW));
  });

  it("refuses the old secret once it has expired, saying which secret expired, and keeps accepting the new one", async () => {
    now = Date.parse(OLD_EXPIRES);
    const old = await withBasic(OLD);
    expect(old.status).toBe(401);
    expect(old.json?.error).toBe("invalid_client");
    expect(eventsOf(events, "client.authentication_failed")).toEqual([
      {
        type: "client.authentication_failed",
        client_id: "rotating-client",
        method: "client_secret_basic",
        reason: "expired_secret",
        secret_fingerprint: fingerprint(OLD),
      },
    ]);
    expect((await withBasic(NEW)).status).toBe(200);
    // A wrong secret is still just wrong: nothing names a secret it did not match.
    events.length = 0;
    expect((await withBasic("not-a-secret-of-it")).status).toBe(401);
    expect(eventsOf(events, "client.authentication_failed")).toEqual([
      { type: "client.authentication_failed", client_id: "rotating-client", method: "client_secret_basic", reason: "wrong_secret" },
    ]);
  });
});

describe("the provider's log during a rotation", () => {
  it("warned at start of the old secret, which expires within a week", () => {
    expect(op.logs.filter((line) => line.event === "client_secret_expiring")).toMatchObject([
      {
        level: 40,
        client_id: "rotating-client",
        msg: `clients.yaml client rotating-client client_secrets[0] expires at ${OLD_EXPIRES}: make sure the client uses the other secret before then`,
      },
    ]);
  });
});

describe("check-config during a rotation", () => {
  it("warns of a secret that expires within a week and of one that has expired, and still passes the config", async () => {
    const soon = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const gone = new Date(Date.now() - 86_400_000).toISOString();
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const client = (id: string, expires: string) => ({
      client_id: id,
      type: "confidential",
      client_secrets: [{ hash: hashSecret(`${id}-old`), expires }, { hash: hashSecret(`${id}-new`) }],
      grant_types: ["client_credentials"],
      allowed_scopes: ["acme"],
    });
    const dir = copyConfig({
      "clients.yaml": {
        "clients.+0": client("soon-client", soon),
        "clients.+1": client("gone-client", gone),
        "clients.+2": client("later-client", later),
      },
    });
    try {
      const result = await portcullis(["check-config", "--config", dir]);
      expect(result.code, result.stderr).toBe(0);
      const warnings = result.stderr.split("\n").filter((line) => line.includes("client_secrets"));
      expect(warnings).toEqual([
        `warning: clients.yaml client soon-client client_secrets[0] expires at ${soon}: make sure the client uses the other secret before then`,
        `warning: clients.yaml client gone-client client_secrets[0] expired at ${gone}: it is refused; remove it from the list`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
