/** The provider endpoints the bench loads, each with the floor it is compared with. */

export const ENDPOINT_NAMES = ["discovery", "jwks", "client_credentials"] as const;
export type EndpointName = (typeof ENDPOINT_NAMES)[number];

/** bare_http: a minimal node:http server on the same core; rs256: RSA-2048 signatures per second on that core. */
export type FloorName = "bare_http" | "rs256";

export interface LoadRequest {
  path: string;
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

export interface Endpoint {
  name: EndpointName;
  floor: FloorName;
  request: LoadRequest;
  /** Which connection count option applies: cheap responses get many, signing endpoints a few. */
  connections: "cheap" | "token";
  /** Checks one response before the load starts, so a misconfiguration fails loudly instead of as N errors. */
  preflight(status: number, body: string): string | undefined;
}

const DEMO_CLIENT_CREDENTIALS = "grant_type=client_credentials&client_id=demo-service&client_secret=demo-service-secret";

export const ENDPOINTS: Readonly<Record<EndpointName, Endpoint>> = {
  discovery: {
    name: "discovery",
    floor: "bare_http",
    request: { path: "/.well-known/openid-configuration", method: "GET" },
    connections: "cheap",
    preflight: (status, body) => expectJson(status, body, "issuer"),
  },
  jwks: {
    name: "jwks",
    floor: "bare_http",
    request: { path: "/.well-known/openid-configuration/jwks", method: "GET" },
    connections: "cheap",
    preflight: (status, body) => expectJson(status, body, "keys"),
  },
  client_credentials: {
    name: "client_credentials",
    floor: "rs256",
    request: {
      path: "/connect/token",
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: DEMO_CLIENT_CREDENTIALS,
    },
    connections: "token",
    preflight: (status, body) => expectJson(status, body, "access_token"),
  },
};

function expectJson(status: number, body: string, member: string): string | undefined {
  if (status !== 200) return `expected 200, got ${status}: ${body.slice(0, 200)}`;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return member in parsed ? undefined : `response has no "${member}": ${body.slice(0, 200)}`;
  } catch {
    return `response is not JSON: ${body.slice(0, 200)}`;
  }
}
