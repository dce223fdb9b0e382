import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { ClientConfig } from "./types.generated.ts";
import { FAPI2_MAX_CODE_LIFETIME_S, FAPI2_MAX_REQUEST_URI_LIFETIME_S, FAPI2_SETTINGS } from "./fapi2-profile.ts";
import { parseDuration } from "../time/duration.ts";
import { isLoopbackHttp } from "../http-kit/loopback-url.ts";

/*
 * A `profile: fapi2` client whose own keys contradict the profile (docs/fapi2.md). The profile fills in
 * what the client leaves out (src/config/fapi2-profile.ts), so every value checked here that differs
 * from the profile's was written in clients.yaml, and the issue points at that line.
 */

type Setting = keyof typeof FAPI2_SETTINGS;

/** Why FAPI 2.0 forbids another value of each setting, with its clause. */
const WHY: Record<Setting, string> = {
  type: "FAPI 2.0 admits only confidential clients (Security Profile §5.3.2.1)",
  token_endpoint_auth_method:
    "FAPI 2.0 clients authenticate with private_key_jwt or mTLS, never a secret, and this provider offers no mTLS (§5.3.2.1)",
  require_pushed_authorization_requests: "FAPI 2.0 logins start only with a pushed authorization request (§5.3.2.2)",
  require_pkce: "FAPI 2.0 requires PKCE on every authorization request (§5.3.2.2)",
  allow_plain_pkce: "FAPI 2.0 allows only the S256 PKCE method (§5.3.2.2)",
  require_dpop: "FAPI 2.0 issues only sender-constrained access tokens, here by DPoP (§5.3.2.1)",
  id_token_signed_response_alg: "FAPI 2.0 signs with PS256, ES256 or EdDSA only, never RS256 (§5.4)",
  access_token_signed_response_alg: "FAPI 2.0 signs with PS256, ES256 or EdDSA only, never RS256 (§5.4)",
};

/** A value a FAPI 2.0 client may give instead of the profile's (an algorithm the profile also allows). */
const ALSO_ALLOWED: Partial<Record<Setting, readonly unknown[]>> = {
  id_token_signed_response_alg: ["ES256"],
  access_token_signed_response_alg: ["ES256"],
};

const issue = (i: number, path: (string | number)[], message: string): IssueDraft => ({
  file: "clients",
  at: ["clients", i, ...path],
  message,
});

function checkSettings(client: ClientConfig, i: number): IssueDraft[] {
  return (Object.keys(FAPI2_SETTINGS) as Setting[]).flatMap((key) => {
    const value = client[key];
    if (value === FAPI2_SETTINGS[key] || ALSO_ALLOWED[key]?.includes(value)) return [];
    return [issue(i, [key], `profile fapi2 does not allow ${key}: ${String(value)}: ${WHY[key]}`)];
  });
}

function checkGrantsAndLifetimes(client: ClientConfig, i: number): IssueDraft[] {
  const issues: IssueDraft[] = [];
  const password = client.grant_types.indexOf("password");
  if (password >= 0)
    issues.push(issue(i, ["grant_types", password], "profile fapi2 does not allow the password grant: FAPI 2.0 rejects it (§5.3.2.1)"));
  const code = client.lifetimes?.authorization_code;
  if (code !== undefined && parseDuration(code) > FAPI2_MAX_CODE_LIFETIME_S)
    issues.push(
      issue(
        i,
        ["lifetimes", "authorization_code"],
        `profile fapi2 allows authorization codes of at most ${FAPI2_MAX_CODE_LIFETIME_S}s: FAPI 2.0 requires it (§5.3.2.2)`,
      ),
    );
  return issues;
}

/**
 * Redirect URIs are https (FAPI 2.0 asks it of its clients: an authorization response over plain http can be read on the way). Plain http on a loopback
 * host is the one exception, for tests and demos on one machine: nothing sent to it leaves the machine.
 */
function checkRedirects(client: ClientConfig, i: number): IssueDraft[] {
  return (client.redirect_uris ?? []).flatMap((uri, j) =>
    uri.startsWith("https://") || isLoopbackHttp(uri)
      ? []
      : [issue(i, ["redirect_uris", j], "profile fapi2 needs https redirect URIs (plain http only on a loopback host, for tests)")],
  );
}

/** An inline key limited to RS256 could never sign an assertion the profile accepts. */
function checkKeys(client: ClientConfig, i: number): IssueDraft[] {
  return (client.jwks?.keys ?? []).flatMap((key, j) =>
    key.alg === "RS256"
      ? [
          issue(
            i,
            ["jwks", "keys", j, "alg"],
            "profile fapi2 accepts client assertions signed PS256 or ES256 only: an RS256 key is of no use (§5.4)",
          ),
        ]
      : [],
  );
}

export const FAPI2_RULES: CrossFieldRule[] = [
  {
    file: "clients",
    needs: ["clients"],
    description:
      "A `profile: fapi2` client gives no setting the FAPI 2.0 Security Profile forbids: not public, no secret method, PAR, PKCE (S256) and DPoP not turned off, no RS256 signing or RS256-only key, no password grant, authorization codes of at most 60s, https redirect URIs (http on a loopback host only).",
    check: ({ clients }) =>
      clients.clients.flatMap((client, i) =>
        client.profile === "fapi2"
          ? [...checkSettings(client, i), ...checkGrantsAndLifetimes(client, i), ...checkRedirects(client, i), ...checkKeys(client, i)]
          : [],
      ),
  },
  {
    file: "provider",
    needs: ["clients", "provider"],
    description: `With a \`profile: fapi2\` client, provider.yaml \`lifetimes.pushed_authorization_request\` is at most ${FAPI2_MAX_REQUEST_URI_LIFETIME_S}s (the request_uri of every client lives that long).`,
    check: ({ clients, provider }) => {
      const fapi2 = clients.clients.find((client) => client.profile === "fapi2");
      if (fapi2 === undefined || parseDuration(provider.lifetimes.pushed_authorization_request) <= FAPI2_MAX_REQUEST_URI_LIFETIME_S)
        return [];
      return [
        {
          file: "provider",
          at: ["lifetimes", "pushed_authorization_request"],
          message: `${fapi2.client_id} has profile fapi2, whose request_uri may live at most ${FAPI2_MAX_REQUEST_URI_LIFETIME_S}s (FAPI 2.0 §5.3.2.2)`,
        },
      ];
    },
  },
];
