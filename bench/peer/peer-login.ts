import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyPassword } from "../../src/crypto/password-hash.ts";
import type { PeerAccounts } from "./peer-accounts.ts";

/**
 * The peer's login page, as node-oidc-provider leaves it to the application: GET /interaction/<uid> shows
 * a password form with a hidden csrf field (what the bench's browser reads, as on the provider's page);
 * POST checks the csrf field and the password (scrypt, with the user's hash from config/users.yaml: the
 * provider's cost per login) and hands the login to node-oidc-provider, which sends the browser back to
 * the authorization endpoint to finish. A wrong password shows the page again, as the provider does.
 */

/** What the handler needs of node-oidc-provider's Provider. */
export interface InteractionProvider {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: object,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
}

export const INTERACTION_PATH = "/interaction/";
/** The provider's session says so of a password login (bench/ceiling/sessions.ts, amr and acr). */
const PASSWORD_LOGIN = { amr: ["password"], acr: "1fa" };
const MAX_FORM_BYTES = 8_192;

export function peerLogin(
  provider: InteractionProvider,
  accounts: PeerAccounts,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  // The csrf value is bound to the interaction: an HMAC of its uid, so nothing is stored per page view.
  const csrfKey = randomBytes(32);
  const csrfOf = (uid: string) => createHmac("sha256", csrfKey).update(uid).digest("base64url");

  return async (req, res) => {
    let details: { uid: string; prompt: { name: string } };
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      return send(res, 400, "unknown or expired interaction");
    }
    if (details.prompt.name !== "login") return send(res, 400, `unexpected prompt ${details.prompt.name}`);
    const csrf = csrfOf(details.uid);
    if (req.method === "GET") return send(res, 200, page(details.uid, csrf));
    if (req.method !== "POST") return send(res, 405, "method not allowed");

    const form = new URLSearchParams(await readBody(req));
    const presented = Buffer.from(form.get("csrf") ?? "");
    if (presented.length !== csrf.length || !timingSafeEqual(presented, Buffer.from(csrf))) return send(res, 403, "bad csrf");
    const user = accounts.byUsername.get(form.get("username") ?? "");
    // An unknown user costs a verification too (against the first user's hash), as on the provider.
    const hash = user?.passwordHash ?? accounts.byUsername.values().next().value?.passwordHash ?? "";
    const valid = await verifyPassword(form.get("password") ?? "", hash);
    if (!user || !valid) return send(res, 200, page(details.uid, csrf));
    await provider.interactionFinished(req, res, { login: { accountId: user.sub, ...PASSWORD_LOGIN } }, { mergeWithLastSubmission: false });
  };
}

/** The uid is node-oidc-provider's (URL-safe characters only). */
function page(uid: string, csrf: string): string {
  return (
    `<!doctype html><html><head><title>Sign in</title></head><body><form method="post" action="${INTERACTION_PATH}${uid}">` +
    `<input type="hidden" name="csrf" value="${csrf}"><input name="username"><input name="password" type="password">` +
    `<button name="event" value="SUBMIT_PASSWORD">Sign in</button></form></body></html>`
  );
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": status === 200 ? "text/html; charset=utf-8" : "text/plain; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_FORM_BYTES) throw new Error("form too large");
  }
  return body;
}
