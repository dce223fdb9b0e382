import type { ServerResponse } from "node:http";
import { requestIdOf } from "../http-kit/write-response.ts";
import { randomToken } from "../crypto/random-token.ts";

/**
 * The response headers of a server-rendered page. The Content-Security-Policy allows only our own
 * stylesheet and images (plus data: images for QR codes), no script unless the response carries a
 * nonce, forms posting to ourselves, and no framing, each widened only by what the caller lists.
 */
export interface PageHeaderOptions {
  /** A per-response nonce (createNonce()); allows `<script nonce="…">` and nothing else. */
  nonce?: string;
  /** Extra form-action sources, e.g. the client's origin for form_post. */
  formAction?: string[];
  /** frame-src sources, e.g. the origins of front-channel logout URLs. */
  frameSrc?: string[];
  /** frame-ancestors sources (iframe_authz: the client's registered origins); replaces X-Frame-Options: DENY. */
  frameAncestors?: string[];
  /** connect-src sources, e.g. 'self' for a page that polls (QR login). */
  connectSrc?: string[];
  /**
   * Inline styles ('unsafe-inline' in style-src): only for a page whose renderer writes <style>
   * elements and style attributes — mermaid's SVG on /diagrams/<name> — and which holds nothing a
   * style could leak (no form, token or personal data). Scripts stay nonce-only.
   */
  inlineStyles?: boolean;
}

/** A fresh CSP nonce: 128 random bits, base64url. */
export function createNonce(): string {
  return randomToken(16);
}

/** The origin (scheme://host[:port]) of an absolute http(s) URL, as a CSP source; undefined otherwise. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CSP source that lets a form's redirect reach `uri` (form-action governs redirects after a POST):
 * its origin for http(s), its scheme for an app's private-use scheme (`com.example.app:`).
 */
export function redirectTargetSource(uri: string): string {
  const origin = originOf(uri);
  if (origin !== undefined) return origin;
  try {
    const scheme = new URL(uri).protocol;
    return /^[a-z][a-z0-9+.-]*:$/i.test(scheme) && !/^(javascript|data|vbscript|blob|file):$/i.test(scheme) ? scheme : "'self'";
  } catch {
    return "'self'";
  }
}

// A CSP source expression from configuration: anything that could end a directive or the header
// (`;`, `,`, whitespace, quotes, control characters) is refused rather than passed on.
const SOURCE = /^(?:'self'|[a-zA-Z][a-zA-Z0-9+.-]*:(?:\/\/[^\s;,'"\\]+)?|\*?[a-zA-Z0-9.-]+(?::[0-9]+)?(?:\/[^\s;,'"\\]*)?)$/;
const NONCE = /^[A-Za-z0-9+/_-]+={0,2}$/;

export function contentSecurityPolicy(options: PageHeaderOptions = {}): string {
  const directives = ["default-src 'none'"];
  if (options.nonce !== undefined) directives.push(`script-src 'nonce-${checkedNonce(options.nonce)}'`);
  directives.push(options.inlineStyles ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'", "img-src 'self' data:");
  if (options.connectSrc?.length) directives.push(`connect-src ${sources(options.connectSrc)}`);
  if (options.frameSrc?.length) directives.push(`frame-src ${sources(options.frameSrc)}`);
  directives.push(`form-action ${sources(["'self'", ...(options.formAction ?? [])])}`);
  directives.push(`frame-ancestors ${options.frameAncestors?.length ? sources(options.frameAncestors) : "'none'"}`);
  directives.push("base-uri 'none'");
  return directives.join("; ");
}

/** The headers of a page as a name → value record. */
export function pageHeaders(options: PageHeaderOptions = {}): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": contentSecurityPolicy(options),
  };
  if (!options.frameAncestors?.length) headers["X-Frame-Options"] = "DENY";
  return headers;
}

/**
 * Writes a rendered page on a plain node:http response (Express's response is one too). Headers an
 * earlier middleware set are replaced, and X-Frame-Options is removed when the page may be framed.
 */
export function writePage(res: ServerResponse, status: number, html: string, options: PageHeaderOptions = {}): void {
  const headers = pageHeaders(options);
  if (!("X-Frame-Options" in headers)) res.removeHeader("X-Frame-Options");
  const list: string[] = Object.entries(headers).flat();
  const requestId = requestIdOf(res);
  if (requestId !== "") list.push("X-Request-Id", requestId);
  list.push("Content-Length", String(Buffer.byteLength(html)));
  res.writeHead(status, list);
  res.end(html);
}

function sources(list: readonly string[]): string {
  for (const source of list) {
    if (!SOURCE.test(source)) throw new Error(`not a safe CSP source expression: ${JSON.stringify(source)}`);
  }
  return [...new Set(list)].join(" ");
}

function checkedNonce(nonce: string): string {
  if (!NONCE.test(nonce) || nonce.length < 16) throw new Error("not a CSP nonce (base64, at least 16 characters)");
  return nonce;
}
