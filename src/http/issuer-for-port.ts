import { isLoopbackHost } from "../http-kit/loopback-url.ts";

/** What the provider does with its issuer once it knows the port it listens on. */
export interface IssuerForPort {
  /** The issuer the provider runs with: the configured one, or the configured one on the listened port. */
  issuer: string;
  /** Set when the issuer moved with an overridden port (the demo case): the issuer provider.yaml names. */
  movedFrom?: string;
  /** Set when the issuer names a loopback port nobody listens on: one line for the operator. */
  warning?: string;
}

/**
 * The issuer is what discovery and every token send clients to, so a provider that listens on one port
 * while its issuer names another is unreachable by its own URLs. That mismatch can only be detected for
 * a loopback issuer (localhost, 127.0.0.0/8, [::1]): anywhere else a reverse proxy or load balancer
 * usually sits in front, and a different public port is normal.
 * - A loopback issuer on the port provider.yaml listens on (the demo: http://localhost:3000, port 3000)
 *   follows an overridden port (--port, PORT): the override means "run the same thing over there".
 * - Any other loopback issuer whose port is not the listened one is kept, with a warning.
 * `listenedPort` is the port actually bound (so `--port 0` moves the issuer to the port picked).
 */
export function issuerForPort(
  issuer: string,
  ports: { configured: number; override: number | undefined; listened: number },
): IssuerForPort {
  const url = new URL(issuer);
  if (!isLoopbackHost(url.hostname)) return { issuer };
  const issuerPort = portOf(url);
  if (issuerPort === ports.listened) return { issuer };
  if (ports.override !== undefined && issuerPort === ports.configured) {
    url.port = String(ports.listened);
    return { issuer: withoutTrailingSlash(url), movedFrom: issuer };
  }
  url.port = String(ports.listened);
  const warning =
    `the issuer ${issuer} names port ${issuerPort} but the provider listens on port ${ports.listened}, ` +
    `so discovery and tokens send clients to a port nobody answers on: set issuer in provider.yaml to ` +
    `${withoutTrailingSlash(url)} or start on port ${issuerPort} (--port ${issuerPort} or PORT=${issuerPort})`;
  return { issuer, warning };
}

function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** URL.toString() of an origin ends in "/", which an issuer never does (config rule); a path is kept as it was. */
function withoutTrailingSlash(url: URL): string {
  return url.pathname === "/" ? url.origin : url.toString();
}
