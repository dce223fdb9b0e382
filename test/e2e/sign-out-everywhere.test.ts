/**
 * Issue 27 §2, "Ending an account's access, now", as an operator and a security team's tool do it: two
 * provider nodes of one deployment on one real Redis (node A in this process, node B an OS process of
 * its own), alice signed in through two clients, one per node, each client a relying-party server on
 * loopback with a back-channel logout URI. `portcullis users sign-out alice` runs as a real process
 * beside the running nodes; then the same through the admin API, which refuses a token without its scope.
 * Each time: both clients receive a logout token they verify, her refresh tokens are refused, her access
 * tokens are refused by userinfo and introspection on either node, and the audit trail shows it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawBrowser } from "../support/raw-browser.ts";
import { eventually, startRelyingParty, type RelyingParty } from "../support/relying-party.ts";
import { serviceUrl } from "../support/require-service.ts";
import { startSiblingProcess, type ProviderProcess } from "../support/provider-process.ts";
import { portcullis } from "../support/run-cli.ts";
import { signInThrough, tokenState, type SignedIn, type SigningClient } from "../support/signed-in-user.ts";
import { basic, postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const redisUrl = serviceUrl("redis");

describe.skipIf(!redisUrl)("signing alice out everywhere on two nodes sharing one Redis", { timeout: 180_000 }, () => {
  let rp: RelyingParty;
  let a: TestProvider;
  let b: ProviderProcess;
  let web: SigningClient;
  let portal: SigningClient;

  beforeAll(async () => {
    rp = await startRelyingParty([
      { clientId: "demo-web", secret: "demo-web-secret", configIndex: 0 },
      { clientId: "demo-portal", secret: "demo-portal-secret", configIndex: 4 },
    ]);
    a = await startTestProvider({ storeUrl: `${redisUrl}?prefix=sign-out-${Date.now()}`, edits: { "clients.yaml": rp.configEdits() } });
    b = await startSiblingProcess(a);
    await rp.connect(a.issuer);
    web = { id: "demo-web", secret: "demo-web-secret", redirectUri: rp.client("demo-web").redirectUri };
    portal = { id: "demo-portal", secret: "demo-portal-secret", redirectUri: rp.client("demo-portal").redirectUri };
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
    await rp?.close();
  });

  /** Alice signed in at demo-web through node A and at demo-portal (reference tokens) through node B, one browser each. */
  async function aliceOnBothNodes(): Promise<{ atWeb: SignedIn; atPortal: SignedIn }> {
    const atWeb = await signInThrough(new RawBrowser(), a, web, "openid profile acme offline_access");
    const atPortal = await signInThrough(new RawBrowser(), b, portal, "openid profile acme offline_access");
    // Both work on either node before.
    expect(await tokenState(b, atWeb, web)).toEqual({ userinfo: 200, active: true, refresh: { status: 200, error: undefined } });
    expect(await tokenState(a, atPortal, portal)).toEqual({ userinfo: 200, active: true, refresh: { status: 200, error: undefined } });
    return { atWeb, atPortal };
  }

  /** Both clients got a logout token they verified for the session, and every token of alice's is refused on both nodes. */
  async function expectEnded({ atWeb, atPortal }: { atWeb: SignedIn; atPortal: SignedIn }): Promise<void> {
    expect(rp.client("demo-web").logoutTokens.map((t) => t.claims)).toContainEqual(
      expect.objectContaining({ sub: "E10001", sid: atWeb.sid }),
    );
    expect(rp.client("demo-portal").logoutTokens.map((t) => t.claims)).toContainEqual(
      expect.objectContaining({ sub: "E10001", sid: atPortal.sid }),
    );
    expect([...rp.client("demo-web").refusedLogoutTokens, ...rp.client("demo-portal").refusedLogoutTokens]).toEqual([]);
    const refused = (refresh: boolean) => ({
      userinfo: 401,
      active: false,
      refresh: refresh ? { status: 400, error: "invalid_grant" } : undefined,
    });
    for (const node of [a, b]) {
      expect(await tokenState(node, { ...atWeb, refreshToken: undefined }, web), node.url).toEqual(refused(false));
      expect(await tokenState(node, { ...atPortal, refreshToken: undefined }, portal), node.url).toEqual(refused(false));
    }
    expect(await tokenState(b, atWeb, web)).toEqual(refused(true));
    expect(await tokenState(a, atPortal, portal)).toEqual(refused(true));
  }

  it("portcullis users sign-out alice, a real process beside the running nodes", async () => {
    const signedIn = await aliceOnBothNodes();
    const users = (...args: string[]) => portcullis(["users", ...args, "--config", a.configDir]);

    const listed = await users("sessions", "alice");
    expect(listed.stderr).toBe("");
    expect(listed.stdout).toMatch(new RegExp(`^sessions \\(2\\):\\n {2}SID +STARTED +LAST SEEN +METHODS +ADDRESS +CLIENTS\\n`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^ {2}${signedIn.atWeb.sid} .* password +127\\.0\\.0\\.1 +demo-web$`, "m"));
    expect(listed.stdout).toMatch(new RegExp(`^ {2}${signedIn.atPortal.sid} .* password +127\\.0\\.0\\.1 +demo-portal$`, "m"));
    expect(listed.stdout).toContain("refresh-token families (2):");

    const ended = await users("sign-out", "alice");
    expect(ended.stderr).toBe("");
    expect(ended.code).toBe(0);
    // The CLI waited for the deliveries and says how each went.
    expect(ended.stdout).toMatch(new RegExp(`^ {2}${signedIn.atWeb.sid} +demo-web +delivered$`, "m"));
    expect(ended.stdout).toMatch(new RegExp(`^ {2}${signedIn.atPortal.sid} +demo-portal +delivered$`, "m"));
    expect(ended.stdout).toContain("sessions ended (2):");
    expect(ended.stdout).toContain("refresh-token families revoked (with every access token they issued) (2):");
    await expectEnded(signedIn);

    // The audit trail: the sign-out, what it ended, each delivery.
    const signoutId = /signout_id (\S+)/.exec(ended.stdout)![1]!;
    const auditFile = join(a.provider.settings.data_dir, "audit.log");
    await eventually(
      () => existsSync(auditFile) && readFileSync(auditFile, "utf8").includes(`"user.signed_out"`),
      "the sign-out's audit line",
    );
    const trace = await portcullis(["audit", "trace", "--config", a.configDir, "--", signoutId]);
    expect(trace.stderr).toBe("");
    const types = trace.stdout
      .split("\n")
      .filter((line) => /^\d{4}-\d\d-\d\dT/.test(line))
      .map((line) => line.split(/\s+/)[1]);
    expect(types.filter((type) => type === "session.ended")).toHaveLength(2);
    expect(types.filter((type) => type === "token.revoked")).toHaveLength(2);
    expect(types.filter((type) => type === "logout.delivered")).toHaveLength(2);
    expect(types.at(-1)).toBe("user.signed_out");
    expect(trace.stdout).toMatch(
      /user\.signed_out +sub=E10001 signout_id=\S+ sessions=2 refresh_families=2 access_tokens=0 by=cli operator=\S+/,
    );
  });

  it("the same through the admin API, which refuses a token without the admin scope", async () => {
    const signedIn = await aliceOnBothNodes();
    const signOut = (token: string) =>
      send(`${a.url}/admin/users/alice/sign-out`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    const tokenOf = async (client: string, secret: string, scope?: string) =>
      (
        await postForm(
          `${b.url}/connect/token`,
          { grant_type: "client_credentials", ...(scope && { scope }) },
          { authorization: basic(client, secret) },
        )
      ).json!.access_token as string;

    const refused = await signOut(await tokenOf("demo-service", "demo-service-secret"));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: "insufficient_scope" });
    expect(await tokenState(a, { ...signedIn.atWeb, refreshToken: undefined }, web)).toMatchObject({ userinfo: 200, active: true });

    // A token from node B, used at node A.
    const answer = await signOut(await tokenOf("demo-security-tool", "demo-security-tool-secret", "portcullis:admin"));
    expect(answer.status, answer.text).toBe(200);
    const outcome = answer.json as { signoutId: string; backChannel: Array<{ sid: string; clientId: string; ok: boolean }> };
    expect(outcome.backChannel.sort((x, y) => x.clientId.localeCompare(y.clientId))).toEqual([
      { sid: signedIn.atPortal.sid, clientId: "demo-portal", ok: true },
      { sid: signedIn.atWeb.sid, clientId: "demo-web", ok: true },
    ]);
    await expectEnded(signedIn);

    const auditFile = join(a.provider.settings.data_dir, "audit.log");
    const auditLines = () =>
      readFileSync(auditFile, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Each call's admin.request line is written when its answer has been sent, so after the sign-out's own lines.
    await eventually(() => {
      const written = auditLines();
      return (
        written.filter((line) => line.type === "admin.request").length === 2 &&
        written.some((line) => line.signout_id === outcome.signoutId && line.type === "user.signed_out")
      );
    }, "the admin sign-out's audit lines");
    const lines = auditLines();
    expect(lines.filter((line) => line.type === "admin.request").map(({ status, client_id }) => ({ status, client_id }))).toEqual([
      { status: 403, client_id: "demo-service" },
      { status: 200, client_id: "demo-security-tool" },
    ]);
    expect(lines.find((line) => line.signout_id === outcome.signoutId && line.type === "user.signed_out")).toMatchObject({
      by: "admin_api",
      client_id: "demo-security-tool",
      sessions: 2,
    });
  });
});
