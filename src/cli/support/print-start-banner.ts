import { join } from "node:path";
import type { RunningProvider } from "../../start-provider.ts";
import { takeScope, type Scope } from "../../infra/scope.ts";
import type { PolicySnapshot } from "../../snapshot/policy-snapshot.ts";
import { paths } from "../../http-kit/paths.ts";

/**
 * What `portcullis start` prints once the provider serves and answers its signals (so a script that
 * waits for "listening on" may signal it at once): where it listens, and how to try the demo.
 */
export function printStartBanner(running: RunningProvider, stderr: NodeJS.WritableStream): void {
  const { url, issuerMovedFrom } = running;
  const scope = takeScope(running.provider);
  const { infra } = scope;
  const moved = issuerMovedFrom ? ` (moved with the port from ${issuerMovedFrom}, as provider.yaml's listen.port was overridden)` : "";
  const lines = [
    "",
    `  Portcullis is listening on ${url}`,
    `  issuer:    ${infra.issuer}${moved}`,
    `  discovery: ${infra.issuer}/.well-known/openid-configuration`,
    `  store:     ${infra.store.backend}`,
    "",
    "  Try it (demo config):",
    `    curl -s -d grant_type=client_credentials -d client_id=demo-service -d client_secret=demo-service-secret ${url}/connect/token`,
    ...browserLoginLines(scope, issuerMovedFrom),
    "  Demo users: alice / alice-password, bob / bob-password (see README.md)",
    "",
  ];
  stderr.write(lines.join("\n") + "\n");
}

/** A ready-made authorize URL for the first client that can log in with a browser without PKCE. */
function browserLoginLines({ infra, policy }: Scope, issuerMovedFrom: string | undefined): string[] {
  const client = [...policy.clients.all()].find((c) => c.grantTypes.has("authorization_code") && !c.requirePkce && c.redirectUris.size > 0);
  if (!client) return [];
  const query = new URLSearchParams({
    client_id: client.id,
    redirect_uri: [...client.redirectUris][0]!,
    response_type: "code",
    scope: "openid profile",
    state: "demo",
  });
  return [
    "  Log in with a browser (you end on the client's redirect URI with a code):",
    `    ${infra.issuer}/connect/authorize?${query}`,
    ...twoFactorLines(infra.issuer, policy, query),
    ...eidLoginLines(infra.issuer, policy, query, issuerMovedFrom),
    `  Then set up more sign-in methods (TOTP, security key, phone, ...) at ${infra.issuer}${paths.account}`,
    `  The login flows drawn as statecharts: ${infra.issuer}${paths.diagrams}`,
  ];
}

/** The same request with two factors, when a two-factor login type is declared (docs/demo-tour.md, "Login types and acr_values", lists the others). */
function twoFactorLines(issuer: string, policy: PolicySnapshot, query: URLSearchParams): string[] {
  const twoFactor = Object.entries(policy.config.login.login_types ?? {}).find(([, type]) => type.flow === "two_factor")?.[0];
  if (twoFactor === undefined) return [];
  return [
    "  Two factors (login_type; docs/demo-tour.md lists every login type and acr value to try):",
    `    ${issuer}/connect/authorize?${query}&login_type=${encodeURIComponent(twoFactor)}`,
  ];
}

/**
 * The eID login with the same request, when its upstream is a development one (demo only): who can log in
 * there. That upstream's client list names the broker's callback at the configured issuer only, so when
 * the issuer moved with --port, the link would end on its "redirect_uri is not registered" page: say what to add.
 */
function eidLoginLines(issuer: string, policy: PolicySnapshot, query: URLSearchParams, issuerMovedFrom: string | undefined): string[] {
  const types = Object.values(policy.config.login.login_types ?? {});
  const upstream = types.find((type) => type.flow === "eid" && type.upstream !== undefined)?.upstream;
  const development = upstream === undefined ? undefined : policy.config.login.eid_upstreams?.[upstream]?.development;
  if (development === undefined) return [];
  const moved =
    issuerMovedFrom === undefined
      ? []
      : [
          `    (first add ${issuer}${paths.eidCallback} to the redirect_uris in ${join(development.config, "clients.yaml")} under the config directory: it lists the callback at ${issuerMovedFrom} only)`,
        ];
  return [
    `  eID login (development eID provider "${upstream}", started at the first eID login; citizens mei / mei-password, ravi / ravi-password):`,
    `    ${issuer}${paths.eidAuthorize}?${query}`,
    ...moved,
  ];
}
