/** Whether a URL host names this machine (localhost, 127.0.0.0/8, [::1]): nothing on it leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** An http:// URL on a loopback host: the only place plain HTTP is acceptable (development and tests). */
export function isLoopbackHttp(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" && isLoopbackHost(parsed.hostname);
  } catch {
    return false;
  }
}
