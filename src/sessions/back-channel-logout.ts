import type { Logger } from "pino";
import type { Client, ClientRegistry } from "../oauth/client-registry.ts";
import type { LogoutTokenIssuer } from "../tokens/logout-token.ts";
import type { SsoSession } from "./sso-sessions.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";

export interface BackChannelLogoutOptions {
  /** Looked up at each delivery: a reload's clients (src/reload/) are the ones delivered to. */
  clients: Pick<ClientRegistry, "get">;
  tokens: LogoutTokenIssuer;
  logger: Logger;
  /** Told how each delivery ended (logout.delivered); none in tests that do not look. */
  audit?: AuditTrail;
  /** Milliseconds one POST may take, connection included. */
  timeoutMs?: number;
  /** Milliseconds to wait before each retry; its length is the number of retries. */
  retryDelaysMs?: readonly number[];
}

/** How the delivery to one client ended: whether it accepted the logout token. */
export interface LogoutDelivery {
  clientId: string;
  ok: boolean;
}

/** How one POST to a client ended. */
type Outcome = { ok: true } | { ok: false; retry: boolean; status?: number; error?: string };

const DEFAULT_TIMEOUT_MS = 5_000;
/** Three attempts in all: now, after 1 s, after 4 s more — well inside the logout token's 2 minutes. */
const DEFAULT_RETRY_DELAYS_MS = [1_000, 4_000];

/**
 * OpenID Connect Back-Channel Logout 1.0: POSTs a logout token (`logout_token=` form) to every client of
 * an ended session that registered a backchannel_logout_uri. Delivery runs in the background — the
 * browser's logout never waits for a slow relying party — with a timeout per attempt and retries after
 * network errors, timeouts, 408, 429 and 5xx (other answers are final: the RP refused the token).
 * Failures are logged with the client id and the reason, never the token. `close()` abandons what is
 * still running (shutdown).
 */
export class BackChannelLogout {
  private readonly clients: Pick<ClientRegistry, "get">;
  private readonly tokens: LogoutTokenIssuer;
  private readonly logger: Logger;
  private readonly audit: AuditTrail | undefined;
  private readonly timeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly stop = new AbortController();
  private readonly running = new Set<Promise<boolean>>();

  constructor(options: BackChannelLogoutOptions) {
    this.clients = options.clients;
    this.tokens = options.tokens;
    this.logger = options.logger;
    this.audit = options.audit;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  }

  /**
   * Starts delivery to the session's clients and returns at once. The promise settles when every
   * delivery has finished, succeeded or not (it never rejects), with how each ended; callers on a
   * request path do not await it, an operator's sign-out does (src/sessions/sign-out-user.ts).
   */
  notify(session: Pick<SsoSession, "sub" | "sid" | "clients">): Promise<LogoutDelivery[]> {
    const deliveries: Promise<LogoutDelivery>[] = [];
    for (const clientId of session.clients) {
      const client = this.clients.get(clientId);
      const uri = client?.config.backchannel_logout_uri;
      if (!client || uri === undefined || this.stop.signal.aborted) continue;
      const sid = client.config.backchannel_logout_session_required ? session.sid : undefined;
      const token = this.tokens.issue({ clientId, sub: session.sub, sid, alg: client.idTokenAlg });
      const delivered = (ok: boolean): LogoutDelivery => {
        this.audit?.record({ type: "logout.delivered", sid: session.sid, client_id: clientId, channel: "back", ok });
        return { clientId, ok };
      };
      deliveries.push(this.track(this.deliver(client, uri, token), clientId).then(delivered));
    }
    return Promise.all(deliveries);
  }

  /** Resolves when no delivery is running (tests; shutdown after close()). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Abandons running deliveries and refuses new ones. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.idle();
  }

  /** Keeps the delivery for idle() and close(); a delivery that crashed counts as not accepted. */
  private track(delivery: Promise<boolean>, clientId: string): Promise<boolean> {
    const tracked = delivery.catch((err: unknown) => {
      this.logger.error({ err, clientId }, "back-channel logout crashed");
      return false;
    });
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
    return tracked;
  }

  /** True when the client accepted the token. */
  private async deliver(client: Client, uri: string, token: string): Promise<boolean> {
    const body = `logout_token=${encodeURIComponent(token)}`;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(uri, body);
      if (outcome.ok) {
        this.logger.debug({ clientId: client.id, attempt }, "back-channel logout delivered");
        return true;
      }
      const { status, error } = outcome;
      const delay = this.retryDelaysMs[attempt - 1];
      if (!outcome.retry || delay === undefined || this.stop.signal.aborted) {
        const reason = this.stop.signal.aborted ? "shutdown" : outcome.retry ? "attempts exhausted" : "refused by the client";
        this.logger.warn({ clientId: client.id, attempts: attempt, status, error, reason }, "back-channel logout failed");
        return false;
      }
      this.logger.info({ clientId: client.id, attempt, status, error, retryInMs: delay }, "back-channel logout attempt failed; retrying");
      await this.pause(delay);
    }
  }

  private async post(uri: string, body: string): Promise<Outcome> {
    try {
      const res = await fetch(uri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "cache-control": "no-store" },
        body,
        redirect: "manual",
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      await res.body?.cancel().catch(() => undefined); // the answer's body means nothing; free the connection
      if (res.status >= 200 && res.status < 300) return { ok: true };
      const retry = res.status >= 500 || res.status === 408 || res.status === 429;
      return { ok: false, retry, status: res.status };
    } catch (err) {
      return { ok: false, retry: true, error: failureName(err) };
    }
  }

  private pause(ms: number): Promise<void> {
    const signal = this.stop.signal;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

/** A short, token-free name for a network failure: the system error code, or the error's name. */
function failureName(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  const name = (err as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : "error";
}
