/**
 * A stand-in for the provider side of the custom QR-code login (custom-login contract §1, §3, §4, §7),
 * just enough to drive the browser script, plus the third-party site that embeds it (another port, so
 * another origin, as in production). The test plays the phone: it sets a session's state, and a held
 * long poll is answered at once — no test waits for the provider's 25 s. Everything the browser sends
 * is recorded, and the polls in flight are counted.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import QRCode from "qrcode";
import { loginErrorScript, loginScript } from "../../src/extensions/custom-login/script/login-script.ts";
import { scriptJson } from "../../src/views/view-engine.ts";

export type ScanState = "waiting" | "scanned" | "auditing" | "approved" | "refused" | "expired" | "done";
export type JQueryVersion = "1.7" | "4" | "none";

export interface StandInSession {
  sessionId: string;
  binding: string;
  qrUri: string;
  state: ScanState;
  /** The session this one renewed, if any. */
  renewedFrom?: string;
  /** Renewed: the provider knows it no more. */
  ended?: boolean;
}

export interface Poll {
  session_id: string | null;
  binding: string | null;
  seen: string | null;
}

/** One `new AcmeSSO(selector, options)` the page makes, in order. */
export interface AcmeSsoCall {
  selector: string;
  options?: Record<string, unknown>;
}

export const DEFAULT_PROMPTS = {
  scanPrompt: "Scan the code with the Acme app",
  s0Prompt: "Finish signing in on your phone",
  s5Prompt: "Waiting for your manager's approval",
  sn10Prompt: "Your manager did not approve this sign-in",
  s10Prompt: "Signing you in",
};

const JQUERY_FILES: Record<Exclude<JQueryVersion, "none">, URL> = {
  "1.7": new URL("../../node_modules/jquery-1.7/tmp/jquery.js", import.meta.url),
  "4": new URL("../../node_modules/jquery/dist/jquery.js", import.meta.url),
};

const NO_STORE = { "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" };

export class CustomLoginStandIn {
  readonly sessions: StandInSession[] = [];
  readonly polls: Poll[] = [];
  readonly renewals: Record<string, string>[] = [];
  /** Each Authorize form as posted: its fields in order, so a duplicate or an extra one shows. */
  readonly authorizations: [string, string][][] = [];
  pollsInFlight = 0;
  maxPollsInFlight = 0;
  /** When set, LoginJs answers the error script with this message and `loginErrorStatus`. */
  loginError: string | undefined;
  loginErrorStatus = 200;
  /** When set, the next Renew answers this HTTP status (and an error body) instead of renewing. */
  renewFailure: number | undefined;
  /** Every poll is answered `expired` at once (a page left alone while its QR codes keep expiring). */
  expireEverySession = false;
  siteUrl = "";
  providerUrl = "";

  private readonly held = new Map<ServerResponse, { sessionId: string; answer: (body: object, status?: number) => void }>();
  private readonly servers: Server[] = [];

  async start(): Promise<this> {
    this.siteUrl = await this.listen((req, res) => this.site(req, res));
    this.providerUrl = await this.listen((req, res) => void this.provider(req, res));
    return this;
  }

  async close(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** The third-party page: jQuery (or none), the LoginJs script tag, then the AcmeSSO calls. */
  pageUrl(jq: JQueryVersion, calls: AcmeSsoCall[] = [{ selector: "#qr" }], loginJs: Record<string, string> = {}): string {
    const url = new URL("/page", this.siteUrl);
    url.searchParams.set("jq", jq);
    url.searchParams.set("calls", JSON.stringify(calls));
    url.searchParams.set("loginJs", JSON.stringify(loginJs));
    return url.href;
  }

  /** The session the page shows now (the last one created). */
  current(): StandInSession {
    const session = this.sessions.at(-1);
    if (!session) throw new Error("the page has not loaded LoginJs");
    return session;
  }

  /** The phone side moves on: the new state is stored and every poll held for the session answered. */
  setState(sessionId: string, state: ScanState): void {
    const session = this.sessions.find((s) => s.sessionId === sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    session.state = state;
    for (const held of [...this.held.values()]) if (held.sessionId === sessionId) held.answer({ state });
  }

  /** The provider's long-poll limit passes: every held poll is answered with the unchanged state. */
  releasePolls(): void {
    for (const held of [...this.held.values()]) held.answer({ state: this.stateOf(held.sessionId) });
  }

  /** Every held poll fails (503), as when the provider restarts. */
  failHeldPolls(): void {
    for (const held of [...this.held.values()]) held.answer({ error: "temporarily_unavailable" }, 503);
  }

  private stateOf(sessionId: string | null, binding?: string | null): ScanState {
    const session = this.sessions.find((s) => s.sessionId === sessionId);
    // Unknown session or wrong binding: expired (contract §3).
    if (!session || session.ended || (binding !== undefined && session.binding !== binding)) return "expired";
    return session.state;
  }

  private async listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    const server = createServer(handler);
    this.servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  private site(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.siteUrl);
    const jq = /^\/jquery-(1\.7|4)\.js$/.exec(url.pathname)?.[1] as keyof typeof JQUERY_FILES | undefined;
    if (jq) {
      res.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8" });
      res.end(readFileSync(JQUERY_FILES[jq]));
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end(); // no console line about a missing icon
      return;
    }
    if (url.pathname !== "/page") {
      res.writeHead(404).end();
      return;
    }
    const version = url.searchParams.get("jq") ?? "4";
    const script = new URL("/Acme/CustomLogin/LoginJs", this.providerUrl);
    const loginJs = {
      clientId: "demo-web",
      MobileRedirectUrl: `${this.siteUrl}/custom-login/mobile`,
      PCRedirectUrl: `${this.siteUrl}/custom-login/pc`,
      ...JSON.parse(url.searchParams.get("loginJs") ?? "{}"),
    };
    for (const [name, value] of Object.entries(loginJs)) script.searchParams.set(name, String(value));
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A third-party page</title></head>
<body>
<div id="qr"></div>
<div id="qr2"></div>
${version === "none" ? "" : `<script src="/jquery-${version}.js"></script>`}
<script src="${script.href.replaceAll("&", "&amp;")}"></script>
<script>
var calls = ${scriptJson(JSON.parse(url.searchParams.get("calls") ?? "[]"))};
for (var i = 0; i < calls.length; i++) new AcmeSSO(calls[i].selector, calls[i].options);
</script>
</body></html>`);
  }

  private async provider(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.providerUrl);
    const body = req.method === "POST" ? new URLSearchParams(await readBody(req)) : new URLSearchParams();
    switch (`${req.method} ${url.pathname}`) {
      case "GET /Acme/CustomLogin/LoginJs":
        return this.loginJs(url, res);
      case "GET /Acme/CustomLogin/Status":
        return this.status(url, res);
      case "POST /Acme/CustomLogin/Renew":
        return this.renew(body, res);
      case "POST /Acme/CustomLogin/Authorize":
        this.authorizations.push([...body]);
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.end(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize</title></head><body><p id="authorized">posted</p></body></html>`,
        );
        return;
      default:
        res.writeHead(404).end();
    }
  }

  private async loginJs(url: URL, res: ServerResponse): Promise<void> {
    const headers = { ...NO_STORE, "Content-Type": "application/javascript; charset=utf-8" };
    if (this.loginError !== undefined) {
      res.writeHead(this.loginErrorStatus, headers).end(loginErrorScript(this.loginError));
      return;
    }
    const param = (name: string): string => url.searchParams.get(name) ?? "";
    const session = await this.newSession(param("clientId"), param("MobileRedirectUrl"), param("MobileState"));
    const pcAuthorize: Record<string, string> = {
      client_id: param("PCClientId") || param("clientId"),
      redirect_uri: param("PCRedirectUrl"),
      scope: param("PCScope") || "openid profile acme",
      response_type: "code",
    };
    if (url.searchParams.has("PCState")) pcAuthorize.state = param("PCState");
    res.writeHead(200, headers).end(
      loginScript({
        ...(await this.sessionFields(session)),
        statusUrl: `${this.providerUrl}/Acme/CustomLogin/Status`,
        renewUrl: `${this.providerUrl}/Acme/CustomLogin/Renew`,
        authorizeUrl: `${this.providerUrl}/Acme/CustomLogin/Authorize`,
        pcAuthorize,
        prompts: DEFAULT_PROMPTS,
        lang: "en",
      }),
    );
  }

  private async newSession(clientId: string, redirectUri: string, mobileState: string, renewedFrom?: string): Promise<StandInSession> {
    const sessionId = randomBytes(32).toString("base64url");
    const authorize = new URL("/connect/authorize", this.providerUrl);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: "openid acme.ext.custom_scan",
      state: `${sessionId}|${mobileState}`,
    }).toString();
    const session: StandInSession = {
      sessionId,
      binding: randomBytes(32).toString("base64url"),
      qrUri: authorize.href,
      state: "waiting",
      ...(renewedFrom && { renewedFrom }),
    };
    this.sessions.push(session);
    return session;
  }

  private async sessionFields(session: StandInSession): Promise<object> {
    const svg = await QRCode.toString(session.qrUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
    return {
      sessionId: session.sessionId,
      binding: session.binding,
      qrUri: session.qrUri,
      qrImage: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
      expiresIn: 120,
    };
  }

  private status(url: URL, res: ServerResponse): void {
    const poll: Poll = {
      session_id: url.searchParams.get("session_id"),
      binding: url.searchParams.get("binding"),
      seen: url.searchParams.get("seen"),
    };
    this.polls.push(poll);
    this.pollsInFlight++;
    this.maxPollsInFlight = Math.max(this.maxPollsInFlight, this.pollsInFlight);
    let answered = false;
    const finish = (): void => {
      if (answered) return;
      answered = true;
      this.pollsInFlight--;
      this.held.delete(res);
    };
    const answer = (body: object, status = 200): void => {
      // Counted as answered before the bytes leave, so the browser's next poll cannot overlap this one here.
      finish();
      res.writeHead(status, { ...NO_STORE, "Content-Type": "application/json" }).end(JSON.stringify(body));
    };
    res.on("close", finish);
    const state = this.expireEverySession ? "expired" : this.stateOf(poll.session_id, poll.binding);
    if (state !== poll.seen || state === "expired") answer({ state });
    else this.held.set(res, { sessionId: poll.session_id!, answer });
  }

  private async renew(form: URLSearchParams, res: ServerResponse): Promise<void> {
    this.renewals.push(Object.fromEntries(form));
    const json = { ...NO_STORE, "Content-Type": "application/json" };
    const old = this.sessions.find((s) => !s.ended && s.sessionId === form.get("session_id") && s.binding === form.get("binding"));
    const refusal = this.renewFailure ?? (old && (old.state === "waiting" || old.state === "expired") ? undefined : 400);
    this.renewFailure = undefined;
    if (refusal !== undefined || !old) {
      res
        .writeHead(refusal ?? 400, json)
        .end(JSON.stringify({ error: "invalid_request", error_description: "the session cannot be renewed" }));
      return;
    }
    old.ended = true;
    const authorize = new URL(old.qrUri);
    const fresh = await this.newSession(
      authorize.searchParams.get("client_id")!,
      authorize.searchParams.get("redirect_uri")!,
      authorize.searchParams.get("state")!.split("|").slice(1).join("|"),
      old.sessionId,
    );
    res.writeHead(200, json).end(JSON.stringify(await this.sessionFields(fresh)));
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += String(chunk);
  return body;
}

/** A started stand-in (both servers on 127.0.0.1, ports chosen by the system). */
export function startCustomLoginStandIn(): Promise<CustomLoginStandIn> {
  return new CustomLoginStandIn().start();
}
