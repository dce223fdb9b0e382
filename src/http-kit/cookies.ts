import type { IncomingMessage } from "node:http";
import { parse, serialize } from "cookie";

/** The provider's cookies. Names carry the __Host- prefix behind https, which pins Path=/ and no Domain. */
export interface CookieJar {
  /** The cookie's value; `path` is the one it was set with (it decides the prefix behind https). */
  read(req: IncomingMessage, name: string, path?: string): string | undefined;
  /** A Set-Cookie value: HttpOnly, SameSite=Lax, Secure behind https, a browser-session cookie (lifetimes are enforced server-side). */
  set(name: string, value: string, options?: { path?: string; sameSiteNone?: boolean }): string;
  clear(name: string, options?: { path?: string }): string;
  /** The cookie's full name (with its prefix behind https). */
  name(base: string, path?: string): string;
}

export function cookieJar(issuer: string): CookieJar {
  const secure = issuer.startsWith("https:");
  // __Host- requires Path=/; path-scoped cookies (one per interaction) use the __Secure- prefix instead.
  const name = (base: string, path = "/") => (secure ? (path === "/" ? `__Host-${base}` : `__Secure-${base}`) : base);
  return {
    name,
    read(req, base, path = "/") {
      const header = req.headers.cookie;
      return header ? parse(header)[name(base, path)] : undefined;
    },
    set(base, value, options = {}) {
      const path = options.path ?? "/";
      return serialize(name(base, path), value, {
        httpOnly: true,
        secure,
        // SameSite=None needs Secure; without https a framed login works only for same-site clients.
        sameSite: options.sameSiteNone && secure ? "none" : "lax",
        path,
      });
    },
    clear(base, options = {}) {
      const path = options.path ?? "/";
      return serialize(name(base, path), "", { httpOnly: true, secure, sameSite: "lax", path, maxAge: 0 });
    },
  };
}
