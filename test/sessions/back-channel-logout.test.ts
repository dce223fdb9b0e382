/**
 * Back-channel logout delivery (OpenID Connect Back-Channel Logout 1.0 §2.5, §2.8): one form POST per
 * client, in the background, retried after failures that may pass, given up after those that will not,
 * and logged without the token.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BackChannelLogout } from "../../src/sessions/back-channel-logout.ts";
import { ClientRegistry } from "../../src/oauth/client-registry.ts";
import type { ClientConfig, ProviderFile } from "../../src/config/types.generated.ts";
import type { LogoutTokenIssuer } from "../../src/tokens/logout-token.ts";

const TOKEN_PREFIX = "logout-token-for-";
const LIFETIMES = {
  authorization_code: "5m",
  access_token: "1h",
  id_token: "1h",
  refresh_token: "30d",
  client_credentials_access_token: "1h",
} as unknown as ProviderFile["lifetimes"];

let rp: Server;
let rpUrl: string;
const received: Array<{ path: string; body: string; contentType: string | undefined }> = [];
/** Per path: statuses to answer in order (then 200); "hang" never answers. */
const script = new Map<string, Array<number | "hang">>();

beforeAll(async () => {
  rp = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, body, contentType: req.headers["content-type"] });
      const next = script.get(path)?.shift() ?? 200;
      if (next === "hang") return;
      res.writeHead(next);
      res.end();
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, "127.0.0.1", resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rp.closeAllConnections();
  await new Promise<void>((resolve) => rp.close(() => resolve()));
});
afterEach(() => {
  received.length = 0;
  script.clear();
});

function client(id: string, extra: Partial<ClientConfig> = {}): ClientConfig {
  return {
    client_id: id,
    type: "confidential",
    grant_types: ["authorization_code"],
    allowed_scopes: ["openid"],
    redirect_uris: [],
    post_logout_redirect_uris: [],
    offline_access: false,
    require_pkce: false,
    allow_plain_pkce: false,
    backchannel_logout_session_required: true,
    frontchannel_logout_session_required: true,
    ...extra,
  } as ClientConfig;
}

function setup(clients: ClientConfig[], options: { timeoutMs?: number; retryDelaysMs?: number[] } = {}) {
  const lines: string[] = [];
  const logger = pino(
    { level: "debug" },
    new Writable({
      write: (chunk, _e, done) => {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const issued: Array<{ clientId: string; sub: string; sid?: string }> = [];
  const tokens = {
    issue: (request: { clientId: string; sub: string; sid?: string }) => {
      issued.push(request);
      return `${TOKEN_PREFIX}${request.clientId}`;
    },
  } as unknown as LogoutTokenIssuer;
  const delivery = new BackChannelLogout({
    clients: new ClientRegistry(clients, LIFETIMES),
    tokens,
    logger,
    timeoutMs: options.timeoutMs ?? 1000,
    retryDelaysMs: options.retryDelaysMs ?? [20, 40],
  });
  const logs = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { delivery, issued, logs, logText: () => lines.join("") };
}

const session = (clients: string[]) => ({ sub: "E10001", sid: "sid-1", clients });

describe("BackChannelLogout", () => {
  it("posts logout_token as a form to each client with a back-channel URI, with sid only when asked", async () => {
    const { delivery, issued } = setup([
      client("a", { backchannel_logout_uri: `${rpUrl}/a` }),
      client("b", { backchannel_logout_uri: `${rpUrl}/b`, backchannel_logout_session_required: false }),
      client("c"),
    ]);
    // Resolved once every delivery has ended, with how each went: only clients with a back-channel URI are delivered to.
    expect(await delivery.notify(session(["a", "b", "c", "gone"]))).toEqual([
      { clientId: "a", ok: true },
      { clientId: "b", ok: true },
    ]);
    expect(received.map((r) => r.path).sort()).toEqual(["/a", "/b"]);
    for (const r of received) {
      expect(r.contentType).toBe("application/x-www-form-urlencoded");
      expect(new URLSearchParams(r.body).get("logout_token")).toBe(`${TOKEN_PREFIX}${r.path.slice(1)}`);
    }
    expect(issued).toEqual([
      { clientId: "a", sub: "E10001", sid: "sid-1" },
      { clientId: "b", sub: "E10001", sid: undefined },
    ]);
  });

  it("returns before the deliveries finish", async () => {
    script.set("/slow", ["hang"]);
    const { delivery } = setup([client("slow", { backchannel_logout_uri: `${rpUrl}/slow` })], { timeoutMs: 300, retryDelaysMs: [] });
    const started = Date.now();
    const done = delivery.notify(session(["slow"]));
    expect(Date.now() - started).toBeLessThan(50);
    await done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("retries after a 500 and stops at the first success", async () => {
    script.set("/flaky", [500, 503]);
    const { delivery, logs } = setup([client("flaky", { backchannel_logout_uri: `${rpUrl}/flaky` })]);
    await delivery.notify(session(["flaky"]));
    expect(received.filter((r) => r.path === "/flaky")).toHaveLength(3);
    expect(
      logs()
        .filter((l) => l.msg === "back-channel logout attempt failed; retrying")
        .map((l) => l.status),
    ).toEqual([500, 503]);
    expect(logs().some((l) => l.msg === "back-channel logout delivered" && l.attempt === 3)).toBe(true);
  });

  it("gives up after the last attempt and logs it without the token", async () => {
    script.set("/down", [500, 500, 500, 500]);
    const { delivery, logs, logText } = setup([client("down", { backchannel_logout_uri: `${rpUrl}/down` })]);
    await delivery.notify(session(["down"]));
    expect(received.filter((r) => r.path === "/down")).toHaveLength(3);
    expect(logs().find((l) => l.msg === "back-channel logout failed")).toMatchObject({
      clientId: "down",
      attempts: 3,
      status: 500,
      reason: "attempts exhausted",
      level: 40,
    });
    expect(logText()).not.toContain(TOKEN_PREFIX);
  });

  it("does not retry a 400 (the client refused the token)", async () => {
    script.set("/refuses", [400]);
    const { delivery, logs } = setup([client("refuses", { backchannel_logout_uri: `${rpUrl}/refuses` })]);
    expect(await delivery.notify(session(["refuses"]))).toEqual([{ clientId: "refuses", ok: false }]);
    expect(received).toHaveLength(1);
    expect(logs().find((l) => l.msg === "back-channel logout failed")).toMatchObject({
      attempts: 1,
      status: 400,
      reason: "refused by the client",
    });
  });

  it("retries after a timeout and after a refused connection", async () => {
    script.set("/hangs-once", ["hang"]);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { delivery, logs } = setup(
      [
        client("hangs", { backchannel_logout_uri: `${rpUrl}/hangs-once` }),
        client("closed", { backchannel_logout_uri: `http://127.0.0.1:${closedPort}/nothing` }),
      ],
      { timeoutMs: 200 },
    );
    await delivery.notify(session(["hangs", "closed"]));
    expect(received.filter((r) => r.path === "/hangs-once")).toHaveLength(2);
    const retries = logs().filter((l) => l.msg === "back-channel logout attempt failed; retrying");
    expect(retries.find((l) => l.clientId === "hangs")?.error).toBe("TimeoutError");
    expect(retries.find((l) => l.clientId === "closed")?.error).toBe("ECONNREFUSED");
    expect(logs().find((l) => l.msg === "back-channel logout failed")).toMatchObject({ clientId: "closed", attempts: 3 });
  });

  it("abandons running deliveries on close and starts none after", async () => {
    script.set("/hang", ["hang"]);
    const { delivery, logs } = setup([client("hang", { backchannel_logout_uri: `${rpUrl}/hang` })], {
      timeoutMs: 10_000,
      retryDelaysMs: [10_000],
    });
    const done = delivery.notify(session(["hang"]));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await delivery.close();
    await done;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(logs().find((l) => l.msg === "back-channel logout failed")).toMatchObject({ reason: "shutdown" });
    await delivery.notify(session(["hang"]));
    expect(received.filter((r) => r.path === "/hang")).toHaveLength(1);
  });
});
