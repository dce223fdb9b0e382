import type { CustomLoginSettings } from "./custom-login-settings.ts";
import type { ScanPlan } from "./scan-session.ts";
import { CUSTOM_SCAN_SCOPE, formatScope, parseScope, scopesOutside, type ExtensionPolicy } from "../../plugin-contract/index.ts";

/** SPEC: "if these two scopes are missing they are added automatically". */
const MOBILE_SCOPE_REQUIRED = ["openid", CUSTOM_SCAN_SCOPE];
/** SPEC: PCScope's default. */
const PC_SCOPE_DEFAULT = "openid profile acme";
/** Every parameter of the spec; anything else is ignored like an unknown authorize parameter. */
const PARAMETERS = [
  "clientId",
  "MobileRedirectUrl",
  "MobileScope",
  "MobileState",
  "PCRedirectUrl",
  "PCScope",
  "PCState",
  "PCClientId",
] as const;
/** Long enough for any real URL or state, short enough that the QR code stays scannable. */
const MAX_LENGTH = 1024;

/** A LoginJs parameter problem: the message the error script shows (it names parameters, never secrets). */
export class LoginJsError extends Error {
  static readonly code: string = "ERR_LOGIN_JS_REQUEST";
  readonly code: string = "ERR_LOGIN_JS_REQUEST";
}

/**
 * Checks LoginJs's query (SPEC "Custom QR-code login: login page script") and plans both sides'
 * authorize requests. The rules: clientId may use the custom login (custom-login.yaml); each redirect
 * URI is registered for its side's client; each side's scopes are allowed to its client; MobileScope
 * gets `openid acme.ext.custom_scan` added; PCScope defaults to `openid profile acme`; PCClientId
 * defaults to clientId, and a different one must ask for one of clientId's own scopes, which both
 * clients are granted (the channel example's `channel.login.scan`).
 */
export function planScan(query: URLSearchParams, policy: Pick<ExtensionPolicy, "clients">, settings: CustomLoginSettings): ScanPlan {
  const value = readParameters(query);
  const clientId = required(value, "clientId");
  const mobileRedirect = required(value, "MobileRedirectUrl");
  const pcRedirect = required(value, "PCRedirectUrl");
  const pcClientId = value.get("PCClientId") ?? clientId;

  const useOf = settings.clients.get(clientId);
  const client = policy.clients.get(clientId);
  if (!client || !useOf) throw new LoginJsError(`clientId ${clientId} may not use the custom QR-code login`);
  if (!client.redirectUris.has(mobileRedirect)) throw new LoginJsError(`MobileRedirectUrl is not a registered redirect URI of ${clientId}`);
  const pcClient = policy.clients.get(pcClientId);
  if (!pcClient?.grantTypes.has("authorization_code"))
    throw new LoginJsError(`PCClientId ${pcClientId} is not a client that may use the authorization code flow`);
  if (!pcClient.redirectUris.has(pcRedirect)) throw new LoginJsError(`PCRedirectUrl is not a registered redirect URI of ${pcClientId}`);
  if (pcClient.requirePkce)
    throw new LoginJsError(`PCClientId ${pcClientId} requires PKCE, which the custom QR-code login cannot send: use a confidential client`);

  const mobileScopes = withRequired(parseScope(value.get("MobileScope")), MOBILE_SCOPE_REQUIRED);
  const pcScopes = parseScope(value.get("PCScope") ?? PC_SCOPE_DEFAULT);
  if (!pcScopes.includes("openid")) throw new LoginJsError("PCScope must contain openid: the PC side logs in with an ID token");
  refuseOutside("MobileScope", mobileScopes, clientId, client.allowedScopes);
  refuseOutside("PCScope", pcScopes, pcClientId, pcClient.allowedScopes);
  if (pcClientId !== clientId && !useOf.ownScopes.some((scope) => pcScopes.includes(scope) && client.allowedScopes.has(scope))) {
    const wanted =
      useOf.ownScopes.length > 0
        ? `one of ${clientId}'s own scopes (${useOf.ownScopes.join(", ")})`
        : `a scope defined by ${clientId}, and it defines none`;
    throw new LoginJsError(`PCClientId ${pcClientId} differs from clientId: PCScope must contain ${wanted}`);
  }
  return {
    mobile: { clientId, redirectUri: mobileRedirect, scopes: mobileScopes, ...optional("state", value.get("MobileState")) },
    pc: { clientId: pcClientId, redirectUri: pcRedirect, scopes: pcScopes, ...optional("state", value.get("PCState")) },
  };
}

function readParameters(query: URLSearchParams): Map<string, string> {
  const values = new Map<string, string>();
  for (const name of PARAMETERS) {
    const all = query.getAll(name).filter((v) => v !== "");
    if (all.length > 1) throw new LoginJsError(`${name} is repeated`);
    if (all[0] === undefined) continue;
    if (all[0].length > MAX_LENGTH) throw new LoginJsError(`${name} is longer than ${MAX_LENGTH} characters`);
    values.set(name, all[0]);
  }
  return values;
}

function required(values: Map<string, string>, name: string): string {
  const value = values.get(name);
  if (value === undefined) throw new LoginJsError(`${name} is required`);
  return value;
}

function withRequired(scopes: string[], required: readonly string[]): string[] {
  return [...scopes, ...required.filter((scope) => !scopes.includes(scope))];
}

function refuseOutside(parameter: string, scopes: readonly string[], clientId: string, allowed: ReadonlySet<string>): void {
  const outside = scopesOutside(scopes, allowed);
  if (outside.length > 0) throw new LoginJsError(`${parameter} asks for ${formatScope(outside)}, which ${clientId} may not obtain`);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
