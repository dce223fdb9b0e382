import { ConfigError } from "../errors/config-error.ts";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * What is wrong with a URL the provider sends personal data to (a code, a phone number, a face image,
 * a user's sub): it must be absolute and https, except on loopback (a gateway or test double on the
 * same machine), and carry no credentials. Undefined when it is fine.
 */
export function outboundUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not an absolute URL";
  }
  const loopback = LOOPBACK_HOSTS.has(parsed.hostname) || /^127\.\d+\.\d+\.\d+$/.test(parsed.hostname);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && loopback))
    return "must be an https URL (plain http only on loopback)";
  if (parsed.username || parsed.password) return "must not carry credentials";
  return undefined;
}

/**
 * Checks a login.yaml outbound URL (see outboundUrlProblem). Throws a ConfigError naming the key, so a
 * bad setting stops the start like any other config mistake.
 */
export function checkOutboundUrl(url: string, keyPath: string): URL {
  const problem = outboundUrlProblem(url);
  if (problem) {
    // login.yaml's gateways take credentials as headers; say where they go.
    const advice = problem === "must not carry credentials" ? ": put them in `headers` as a ${env:...} reference" : "";
    throw new ConfigError([{ file: "login.yaml", path: keyPath, message: problem + advice }]);
  }
  return new URL(url);
}
