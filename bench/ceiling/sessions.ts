import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { BENCH_SESSION_COOKIE } from "../code-flow.ts";
import { DEMO_USERS } from "../demo-accounts.ts";
import { readForm, type Handler } from "./http.ts";
import type { Authentication } from "./tokens.ts";

/**
 * The code-flow ceiling's SSO sessions, in a Map keyed by the cookie's value. There is no login page:
 * the bench opens a session for a demo user with one bench-only request (BENCH_SESSION_PATH), which is
 * setup, not load. What a session holds is what the provider's holds for a password login.
 */
const sessions = new Map<string, Authentication>();
const SUB_OF = new Map<string, string>(DEMO_USERS.map((u) => [u.username, u.sub]));

/** POST username=… → 204 with the session cookie. */
export const openSession: Handler = (req, res) => {
  readForm(req).then(
    (form) => {
      const sub = SUB_OF.get(form?.get("username") ?? "");
      if (sub === undefined) {
        res.writeHead(400, ["Content-Length", "0"]);
        return res.end();
      }
      const handle = randomBytes(32).toString("base64url");
      sessions.set(handle, {
        sub,
        authTime: Math.floor(Date.now() / 1000),
        amr: ["password"],
        acr: "1fa",
        sid: randomBytes(16).toString("base64url"),
      });
      res.writeHead(204, ["Set-Cookie", `${BENCH_SESSION_COOKIE}=${handle}; Path=/; HttpOnly; SameSite=Lax`]);
      res.end();
    },
    () => res.destroy(),
  );
};

/** The session the request's cookie names, if there is one. */
export function sessionOf(req: IncomingMessage): Authentication | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const pair of header.split("; ")) {
    const eq = pair.indexOf("=");
    if (pair.slice(0, eq) === BENCH_SESSION_COOKIE) return sessions.get(pair.slice(eq + 1));
  }
  return undefined;
}
