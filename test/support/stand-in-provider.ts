/**
 * A stand-in for the provider's side of the custom QR login, for testing the demo parties without it:
 * discovery and JWKS (so the channel service's ProviderTokenVerifier accepts its access tokens), a token
 * endpoint that redeems the codes a test issued (client_secret_post, secret `<client_id>-secret`, single
 * use, bound to the redirect URI), userinfo, and WriteStatusOperation, which records every call and
 * answers 200 OK unless a test queued another answer. Its LoginJs is a probe, not the real script
 * (fake-login-js.ts): it lets a browser test see what a relying page's CSP lets the script do.
 */
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeLoginJs } from "./fake-login-js.ts";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";

export interface Grant {
  sub: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  /** The ID token's custom_scan claim, encoded as the provider does (standard base64 of the JSON). */
  customScan?: { st: string; aud: string; lt: string; et: string };
}

export interface RecordedWrite {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface StandInProvider {
  issuer: string;
  writes: RecordedWrite[];
  /** Answers for the next status writes, first first; then 200 OK. */
  writeAnswers: Array<{ http: number; status: number; message: string }>;
  issueCode(grant: Grant): string;
  accessToken(grant: Pick<Grant, "sub" | "clientId" | "scope">): Promise<string>;
  close(): Promise<void>;
}

export async function startStandInProvider(): Promise<StandInProvider> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "stand-in", alg: "RS256", use: "sig" };
  const codes = new Map<string, Grant>();
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: Record<string, unknown>, typ: string, aud: string | string[]) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", typ, kid: "stand-in" })
      .setIssuer(issuer)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
  const accessToken = (grant: Pick<Grant, "sub" | "clientId" | "scope">) =>
    sign({ sub: grant.sub, client_id: grant.clientId, scope: grant.scope }, "at+jwt", [
      "acme-api",
      "channel-service",
      `${issuer}/connect/userinfo`,
    ]);

  const provider: StandInProvider = {
    issuer,
    writes: [],
    writeAnswers: [],
    issueCode(grant) {
      const code = randomBytes(16).toString("base64url");
      codes.set(code, grant);
      return code;
    },
    accessToken,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
    const url = new URL(req.url!, issuer);
    const body = await readBody(req);
    if (url.pathname === "/.well-known/openid-configuration") return json(200, { issuer, jwks_uri: `${issuer}/jwks` });
    if (url.pathname === "/jwks") return json(200, { keys: [jwk] });
    if (url.pathname === "/connect/userinfo") {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      return token ? json(200, { sub: decodeJwt(token).sub, name: "<b>Stand-in</b>" }) : json(401, { error: "invalid_token" });
    }
    if (url.pathname === "/connect/token" && req.method === "POST") {
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const ok =
        grant &&
        form.get("grant_type") === "authorization_code" &&
        form.get("client_id") === grant.clientId &&
        form.get("client_secret") === `${grant.clientId}-secret` &&
        form.get("redirect_uri") === grant.redirectUri;
      if (!ok) return json(400, { error: "invalid_grant", error_description: "the code is unknown, used, or not this client's" });
      const custom = grant.customScan && { custom_scan: Buffer.from(JSON.stringify(grant.customScan)).toString("base64") };
      return json(200, {
        token_type: "Bearer",
        expires_in: 600,
        scope: grant.scope,
        access_token: await accessToken(grant),
        id_token: await sign({ sub: grant.sub, ...custom }, "JWT", grant.clientId),
      });
    }
    if (url.pathname === "/Acme/CustomLogin/LoginJs") {
      return res
        .writeHead(200, { "content-type": "application/javascript; charset=utf-8", "cache-control": "no-store" })
        .end(fakeLoginJs(issuer, url.searchParams));
    }
    if (url.pathname === "/Acme/CustomLogin/Status") {
      return res
        .writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" })
        .end(JSON.stringify({ state: "approved" }));
    }
    if (url.pathname === "/Acme/CustomLogin/Authorize" && req.method === "POST") {
      // The PC login of the probe: a code for the PC client, and state = <the probe's findings>|<PCState>.
      const form = new URLSearchParams(body);
      const code = provider.issueCode({
        sub: "E10001",
        clientId: form.get("client_id")!,
        redirectUri: form.get("redirect_uri")!,
        scope: form.get("scope")!,
      });
      const state = `${form.get("probe")}|${form.get("state") ?? ""}`;
      return res.writeHead(303, { location: `${form.get("redirect_uri")}?${new URLSearchParams({ code, state, iss: issuer })}` }).end();
    }
    if (url.pathname === "/Acme/CustomLogin/WriteStatusOperation" && req.method === "POST") {
      provider.writes.push({ authorization: req.headers.authorization, body: JSON.parse(body) as Record<string, unknown> });
      const answer = provider.writeAnswers.shift() ?? { http: 200, status: 200, message: "OK" };
      return json(answer.http, { status: answer.status, message: answer.message });
    }
    json(404, { error: "not_found" });
  });
  return provider;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}
