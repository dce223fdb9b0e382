/**
 * The demo's development eID upstream: a second provider this one starts in its own process at the first
 * eID login (not at start), stops when it stops, and never starts beside a non-loopback issuer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { DevelopmentUpstreams } from "../../src/eid/development-upstreams.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { freePort } from "../support/services.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

const PROCESS_TEST_MS = 120_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Whether anything accepts connections at `url` (a refused connection is "no"). */
const answers = (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

describe("a development eID upstream", () => {
  let provider: TestProvider | undefined;
  afterAll(() => provider?.close());

  it(
    "starts at the first eID login, in this process, on its port, logs its citizens in; and stops with the provider",
    async () => {
      const port = await freePort();
      const brokerPort = await freePort();
      const issuer = `http://127.0.0.1:${port}`;
      const upstreamData = mkdtempSync(join(tmpdir(), "portcullis-dev-eid-"));
      dirs.push(upstreamData);
      provider = await startTestProvider({
        edits: {
          "login.yaml": { "eid_upstreams.dev-eid.issuer": issuer, "eid_upstreams.dev-eid.development.port": port },
          "dev-eid-upstream/provider.yaml": { issuer, "listen.port": port, data_dir: upstreamData },
          "dev-eid-upstream/clients.yaml": { "clients.0.redirect_uris": [`http://127.0.0.1:${brokerPort}/eID/callback`] },
          "provider.yaml": { "listen.port": brokerPort },
        },
        issuer: `http://127.0.0.1:${brokerPort}`,
      });
      const callback = `${provider.issuer}/eID/callback`;
      expect(await answers(`${issuer}/.well-known/openid-configuration`)).toBe(false);

      const { url, pending } = await provider.provider.eid.begin("dev-eid", callback);
      expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/connect/authorize`);
      expect(provider.logs.some((line) => line.msg === "development eID upstream started" && line.upstream === "dev-eid")).toBe(true);
      // The demo as shipped: its secret file, its claim mapping and its sub prefix, with a citizen of docs/demo-tour.md.
      const answer = await loginWithPassword(new RawBrowser(), url.href, "ravi", "ravi-password");
      expect(await provider.provider.eid.finish(answer.location!, pending)).toEqual({
        sub: "eid:CZ-4201-9034",
        claims: { name: "Ravi Kumar", birthdate: "1979/12/01", email: "ravi.kumar@example.org" },
        acr: "1fa",
      });
      // Started once: a second login reuses it.
      await provider.provider.eid.begin("dev-eid", callback);
      expect(provider.logs.filter((line) => line.msg === "development eID upstream started")).toHaveLength(1);

      await provider.close();
      provider = undefined;
      expect(await answers(`${issuer}/.well-known/openid-configuration`)).toBe(false);
    },
    PROCESS_TEST_MS,
  );

  it("is never started beside an issuer that is not loopback http:// (production): a warning instead", () => {
    const lines: string[] = [];
    const logger = pino(
      new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    let launched = 0;
    const upstreams = new DevelopmentUpstreams(
      "/etc/portcullis",
      async () => {
        launched++;
        return { url: "http://127.0.0.1:3100", close: async () => {} };
      },
      logger,
    );
    const login = {
      methods: {},
      default_flow: { methods: ["password"] },
      eid_upstreams: {
        "dev-eid": {
          issuer: "http://localhost:3100",
          client_id: "c",
          client_secret: "s",
          scopes: "openid",
          claims: {},
          sub_prefix: "eid:",
          acr: { forward: {}, performed: {} },
          development: { config: "dev-eid-upstream", port: 3100 },
        },
      },
    };
    expect(upstreams.options(login, "https://login.example.com").size).toBe(0);
    expect(launched).toBe(0);
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      expect.stringMatching(/^development eID upstream not started: this provider's issuer is not a loopback http:\/\/ URL/),
    ]);
    expect(upstreams.options(login, "http://localhost:3000").size).toBe(1);
  });
});
