import { ConfigError } from "../config/config-error.ts";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Checks a URL the provider sends personal data to (a code, a phone number, a face image): it must
 * be https, except on loopback (a gateway or test double on the same machine). Throws a ConfigError
 * naming the login.yaml key, so a bad setting stops the start like any other config mistake.
 */
export function checkOutboundUrl(url: string, keyPath: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError([{ file: "login.yaml", path: keyPath, message: "is not an absolute URL" }]);
  }
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname) || /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback)) {
    throw new ConfigError([{ file: "login.yaml", path: keyPath, message: "must be an https URL (plain http only on loopback)" }]);
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError([{ file: "login.yaml", path: keyPath, message: "must not carry credentials: put them in `headers` as a ${env:...} reference" }]);
  }
  return parsed;
}
