import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import { parse, serialize } from "cookie";
import { DemoPageError } from "./demo-page-error.ts";
import { formField } from "./form-field.ts";

export interface PageSession<T> {
  readonly id: string;
  /** The form token of this session's pages (a synchronizer token: it lives only here and in the page). */
  readonly csrf: string;
  data: T;
  expiresAt: number;
}

export interface PageSessionOptions {
  /** How long a session lives after it starts. Default 15 minutes: a QR login is over long before. */
  ttlMs?: number;
  /** At most this many sessions are kept; the oldest goes first. */
  max?: number;
  /** Mark the cookie Secure (a site behind https). */
  secure?: boolean;
}

const random = () => randomBytes(32).toString("base64url");

/**
 * The server-side sessions of a demo site's pages, in memory, keyed by a random cookie. The cookie name
 * must differ per site: browsers share cookies between the ports of one host, so the provider
 * (localhost:3000), the channel service (4100) and the demo sites (3005, 3006) all see each other's.
 */
export class PageSessions<T> {
  private readonly cookieName: string;
  private readonly options: PageSessionOptions;
  private readonly sessions = new Map<string, PageSession<T>>();

  constructor(cookieName: string, options: PageSessionOptions = {}) {
    this.cookieName = cookieName;
    this.options = options;
  }

  /** A new session; its cookie is set on `res` (HttpOnly, SameSite=Lax, a browser-session cookie). */
  start(res: Response, data: T): PageSession<T> {
    const session: PageSession<T> = { id: random(), csrf: random(), data, expiresAt: Date.now() + (this.options.ttlMs ?? 15 * 60_000) };
    this.sessions.set(session.id, session);
    while (this.sessions.size > (this.options.max ?? 1000)) this.sessions.delete(this.sessions.keys().next().value!);
    res.append(
      "Set-Cookie",
      serialize(this.cookieName, session.id, { httpOnly: true, sameSite: "lax", path: "/", secure: this.options.secure ?? false }),
    );
    return session;
  }

  /** The browser's live session, if it has one. */
  find(req: Request): PageSession<T> | undefined {
    const id = req.headers.cookie ? parse(req.headers.cookie)[this.cookieName] : undefined;
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (session && session.expiresAt <= Date.now()) {
      this.sessions.delete(session.id);
      return undefined;
    }
    return session;
  }

  /** The browser's live session; a 400 page when it has none (the session expired or the cookie is gone). */
  current(req: Request): PageSession<T> {
    const session = this.find(req);
    if (!session) throw new DemoPageError(400, "This page has expired. Scan the QR code on the PC again.");
    return session;
  }

  /** The session of a form post, whose `csrf` field must be this session's token (403 otherwise). */
  forPost(req: Request): PageSession<T> {
    const session = this.current(req);
    const sent = Buffer.from(formField(req.body, "csrf") ?? "");
    const expected = Buffer.from(session.csrf);
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
      throw new DemoPageError(403, "The form could not be verified. Reload the page and try again.");
    return session;
  }
}
