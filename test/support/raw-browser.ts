/**
 * A browser reduced to what the login tests need over raw HTTP: a cookie jar (name, value and path,
 * per host), manual redirects, and the login form's hidden fields. Real-browser behaviour is tested
 * with Chromium in test/e2e; this one lets protocol tests see every status and header.
 */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location?: string;
  url: string;
}

interface Cookie {
  value: string;
  path: string;
}

export class RawBrowser {
  /** Cookies by name (one origin per test provider is all the tests use). */
  readonly cookies = new Map<string, Cookie>();

  async get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send(url, { method: "GET", headers });
  }

  async post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Follows same-origin redirects (not the one to the client) until a page or a foreign Location. */
  async follow(answer: Answer): Promise<Answer> {
    let current = answer;
    while (current.location && new URL(current.location, current.url).origin === new URL(current.url).origin) {
      current = await this.get(new URL(current.location, current.url).href);
    }
    return current;
  }

  cookieHeader(url: string): string {
    const path = new URL(url).pathname;
    return [...this.cookies]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`) || c.path === "/")
      .map(([name, c]) => `${name}=${c.value}`)
      .join("; ");
  }

  private async send(url: string, init: RequestInit & { headers: Record<string, string> }): Promise<Answer> {
    const cookie = this.cookieHeader(url);
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(cookie && { cookie }), ...init.headers } });
    for (const line of res.headers.getSetCookie()) this.store(line);
    const location = res.headers.get("location") ?? undefined;
    return { status: res.status, headers: res.headers, text: await res.text(), location: location && new URL(location, url).href, url };
  }

  private store(line: string): void {
    const [pair, ...attributes] = line.split(";").map((s) => s.trim());
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? "/";
    const expired = attributes.some((a) => /^max-age=0$/i.test(a)) || value === "";
    if (expired) this.cookies.delete(name);
    else this.cookies.set(name, { value, path });
  }
}

/** The value of a hidden form field in a page. */
export function hiddenField(html: string, name: string): string | undefined {
  const match =
    new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html) ??
    new RegExp(`<input[^>]*value="([^"]*)"[^>]*name="${name}"`).exec(html);
  return match?.[1] === undefined ? undefined : attributeValue(match[1]);
}

/** An attribute's text as Handlebars escaped it, unescaped. */
export function attributeValue(escaped: string): string {
  return escaped
    .replaceAll("&amp;", "&")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x3D;", "=")
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">");
}

/** The src of each front-channel logout iframe of a logged-out page. */
export function logoutFrames(html: string): string[] {
  return [...html.matchAll(/<iframe class="logout-frame" src="([^"]+)"/g)].map((match) => attributeValue(match[1]!));
}

/** The action of the first form in a page, resolved against the page URL. */
export function formAction(html: string, pageUrl: string): string {
  const match = /<form[^>]*action="([^"]*)"/.exec(html);
  if (!match) throw new Error("no form on the page");
  return new URL(match[1]!.replaceAll("&amp;", "&").replaceAll("&#x3D;", "="), pageUrl).href;
}
