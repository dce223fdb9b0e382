/**
 * The ceiling servers (bench/workers/ceiling-*.ts) do the protocol work they stand for, refusals included:
 * a ceiling that skipped a check would flatter itself and make the provider look worse than it is.
 */
import { spawn } from "node:child_process";
import { hash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stop } from "../../bench/child-processes.ts";
import { Browser, FlowError, httpSender, oneConnection, pkcePair, redeemCode, TOKEN_PATH, type Send } from "../../bench/code-flow.ts";
import { DEMO_SERVICE, DEMO_USERS, DEMO_WEB } from "../../bench/demo-accounts.ts";
import { firstRefreshToken, REFRESH_SCOPE, refreshGrant } from "../../bench/refresh-flow.ts";
import { firstJsonLine, PROJECT_ROOT } from "../../bench/workers.ts";

async function startCeiling(script: string): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  // Not the bench's spawnTracked: that installs the bench's signal handlers, which are not the test runner's.
  const child = spawn(process.execPath, [`bench/workers/${script}`], { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const { port } = await firstJsonLine<{ port: number }>(child, script);
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => stop(child) };
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

describe("the client_credentials ceiling", () => {
  let ceiling: Awaited<ReturnType<typeof startCeiling>>;
  beforeAll(async () => (ceiling = await startCeiling("ceiling-client-credentials.ts")));
  afterAll(() => ceiling.stop());

  const token = (fields: Record<string, string>) => fetch(`${ceiling.baseUrl}${TOKEN_PATH}`, form(fields));
  const service = { grant_type: "client_credentials", client_id: DEMO_SERVICE.clientId, client_secret: DEMO_SERVICE.clientSecret };

  it("issues an at+jwt access token for the requested scopes, not to be cached", async () => {
    const res = await token({ ...service, scope: "acme" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as { access_token: string; scope: string };
    expect(body.scope).toBe("acme");
    expect(claimsOf(body.access_token)).toMatchObject({
      sub: DEMO_SERVICE.clientId,
      client_id: DEMO_SERVICE.clientId,
      aud: "acme-api",
      scope: "acme",
    });
  });

  it("refuses a wrong secret, a scope the client may not have, and a client not allowed the grant", async () => {
    expect((await token({ ...service, client_secret: "wrong" })).status).toBe(401);
    expect(await (await token({ ...service, scope: "openid" })).json()).toEqual({ error: "invalid_scope" });
    const web = { grant_type: "client_credentials", client_id: DEMO_WEB.clientId, client_secret: DEMO_WEB.clientSecret };
    expect(await (await token(web)).json()).toEqual({ error: "unauthorized_client" });
  });
});

/** The ceiling started for the enclosing describe block, and a sender over one keep-alive connection to it. */
function ceilingWithSender(script: string): { ceiling: () => Awaited<ReturnType<typeof startCeiling>>; send: Send } {
  let ceiling: Awaited<ReturnType<typeof startCeiling>>;
  let sender: Send;
  const agent = oneConnection();
  beforeAll(async () => {
    ceiling = await startCeiling(script);
    sender = httpSender(ceiling.baseUrl, agent);
  });
  afterAll(async () => {
    agent.destroy();
    await ceiling.stop();
  });
  return { ceiling: () => ceiling, send: (...args) => sender(...args) };
}

describe("the code flow ceiling", () => {
  const { ceiling: started, send } = ceilingWithSender("ceiling-code-flow.ts");

  async function codeFor(pkce = pkcePair()): Promise<{ code: string; pkce: ReturnType<typeof pkcePair> }> {
    const browser = new Browser(send);
    await browser.openBenchSession(DEMO_USERS[1]);
    const answer = await browser.authorize({ scope: DEMO_WEB.scope, state: "st", nonce: "nn", pkce });
    if (!("code" in answer)) throw new Error("no code");
    return { code: answer.code, pkce };
  }

  it("gives a browser with a session a code, and the client an ID token bound to the access token", async () => {
    const { code, pkce } = await codeFor();
    const tokens = await redeemCode(send, code, pkce);
    const idToken = claimsOf(tokens.id_token);
    expect(idToken).toMatchObject({ sub: DEMO_USERS[1].sub, aud: DEMO_WEB.clientId, nonce: "nn", amr: ["password"] });
    expect(idToken.at_hash).toBe(hash("sha256", tokens.access_token, "buffer").subarray(0, 16).toString("base64url"));
    expect(claimsOf(tokens.access_token)).toMatchObject({ sub: DEMO_USERS[1].sub, client_id: DEMO_WEB.clientId, sid: idToken.sid });
  });

  it("takes a code once", async () => {
    const { code, pkce } = await codeFor();
    await redeemCode(send, code, pkce);
    await expect(redeemCode(send, code, pkce)).rejects.toThrow(FlowError);
  });

  it("refuses a wrong PKCE verifier", async () => {
    const { code } = await codeFor();
    await expect(redeemCode(send, code, pkcePair())).rejects.toThrow(/expected 200, got 400/);
  });

  it("sends a browser without a session back with login_required, and refuses a redirect_uri the client did not register", async () => {
    const query = new URLSearchParams({
      client_id: DEMO_WEB.clientId,
      redirect_uri: DEMO_WEB.redirectUri,
      response_type: "code",
      scope: "openid",
      state: "s",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
    });
    const noSession = await fetch(`${started().baseUrl}/connect/authorize?${query}`, { redirect: "manual" });
    expect(noSession.status).toBe(303);
    expect(noSession.headers.get("location")).toMatch(/^http:\/\/localhost:3001\/callback\?error=login_required&state=s&iss=/);
    query.set("redirect_uri", "http://localhost:3001/elsewhere");
    expect((await fetch(`${started().baseUrl}/connect/authorize?${query}`, { redirect: "manual" })).status).toBe(400);
  });
});

describe("the refresh ceiling", () => {
  const { ceiling: started, send } = ceilingWithSender("ceiling-refresh.ts");

  async function refreshToken(): Promise<string> {
    const browser = new Browser(send);
    await browser.openBenchSession(DEMO_USERS[0]);
    return firstRefreshToken(browser, send, "t", pkcePair());
  }
  const refreshForm = (token: string, extra: Record<string, string> = {}) =>
    form({
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: DEMO_WEB.clientId,
      client_secret: DEMO_WEB.clientSecret,
      ...extra,
    });
  const refreshAnswer = async (token: string, extra: Record<string, string> = {}) => {
    const res = await fetch(`${started().baseUrl}${TOKEN_PATH}`, refreshForm(token, extra));
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };

  it("rotates the token on every refresh, with an ID token of the same login and no nonce", async () => {
    const first = await refreshGrant(send, await refreshToken());
    const second = await refreshGrant(send, first.refresh_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe(REFRESH_SCOPE);
    const idToken = claimsOf(second.id_token);
    expect(idToken).toMatchObject({ sub: DEMO_USERS[0].sub, aud: DEMO_WEB.clientId, sid: claimsOf(first.id_token).sid });
    expect(idToken).not.toHaveProperty("nonce");
  });

  it("revokes the family when a rotated token comes back", async () => {
    const token = await refreshToken();
    const next = await refreshGrant(send, token);
    expect(await refreshAnswer(token)).toEqual({ status: 400, body: { error: "invalid_grant" } });
    expect(await refreshAnswer(next.refresh_token)).toEqual({ status: 400, body: { error: "invalid_grant" } });
  });

  it("refuses a wider scope and a client not allowed the grant, and uses nothing up", async () => {
    const token = await refreshToken();
    expect(await refreshAnswer(token, { scope: `${REFRESH_SCOPE} email` })).toEqual({ status: 400, body: { error: "invalid_scope" } });
    const service = await fetch(
      `${started().baseUrl}${TOKEN_PATH}`,
      form({
        grant_type: "refresh_token",
        refresh_token: token,
        client_id: DEMO_SERVICE.clientId,
        client_secret: DEMO_SERVICE.clientSecret,
      }),
    );
    expect(await service.json()).toEqual({ error: "unauthorized_client" });
    expect((await refreshAnswer(token, { scope: "openid" })).body.scope).toBe("openid");
  });
});
