import type { CrossFieldRule } from "./cross-field-rule.ts";
import { findDuplicates } from "./find-duplicates.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { ClientConfig } from "./types.generated.ts";
import { ADMIN_SCOPE } from "./reserved-scopes.ts";

/*
 * Rules on clients.yaml, alone or against scopes.yaml: what makes a client usable and safe beyond the
 * shape the schema checks.
 */

/** Issues of every client, each checked on its own with its index for the key path. */
const forEachClient = (clients: ClientConfig[], check: (client: ClientConfig, i: number) => IssueDraft[]) =>
  clients.flatMap((client, i) => check(client, i));

/** Grants that authenticate the client itself, which a public client cannot do. */
const SECRET_GRANTS = ["client_credentials", "password"] as const;

/** URI lists and single URIs that must be absolute and carry no fragment. */
const URI_LISTS = ["redirect_uris", "post_logout_redirect_uris"] as const;
const URI_KEYS = ["backchannel_logout_uri", "frontchannel_logout_uri"] as const;

export const CLIENT_RULES: CrossFieldRule[] = [
  {
    file: "clients",
    needs: ["clients", "users"],
    description:
      "No `client_id` equals a user's `sub`: a client_credentials token's `sub` is its client id, and an API must never mistake it for an employee (RFC 9068 §5).",
    check: ({ clients, users }) => {
      const subs = new Set(users.users.map((u) => u.sub));
      return forEachClient(clients.clients, (client, i) =>
        subs.has(client.client_id)
          ? [
              {
                file: "clients",
                at: ["clients", i, "client_id"],
                message: "equals the sub (employee number) of a user in users.yaml",
                value: client.client_id,
              },
            ]
          : [],
      );
    },
  },
  {
    file: "clients",
    needs: ["clients"],
    description: "`client_id` values are unique.",
    check: ({ clients }) =>
      findDuplicates(clients.clients, (c) => c.client_id).map(({ index, firstIndex, key }) => ({
        file: "clients",
        at: ["clients", index, "client_id"],
        message: `duplicate client_id "${key}" (first used by clients[${firstIndex}])`,
      })),
  },
  {
    file: "clients",
    needs: ["clients"],
    description:
      "A `public` client has no secret (`client_secret_hash`, `client_secrets`) and uses neither `client_credentials` nor `password` (what a confidential client needs to authenticate: client-auth-rules.ts).",
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i): IssueDraft[] => {
        if (client.type === "confidential") return [];
        const issues: IssueDraft[] = [];
        for (const key of ["client_secret_hash", "client_secrets"] as const) {
          if (client[key] !== undefined) {
            issues.push({
              file: "clients",
              at: ["clients", i, key],
              message: "a public client cannot keep a secret: remove it or make the client confidential",
            });
          }
        }
        client.grant_types.forEach((grant, j) => {
          if ((SECRET_GRANTS as readonly string[]).includes(grant)) {
            issues.push({
              file: "clients",
              at: ["clients", i, "grant_types", j],
              message: `a public client cannot use the ${grant} grant`,
            });
          }
        });
        return issues;
      }),
  },
  {
    file: "clients",
    needs: ["clients"],
    description: "Redirect, post-logout redirect and logout URIs are absolute and have no fragment.",
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i) =>
        [
          ...URI_LISTS.flatMap((key) => client[key].map((uri, j) => checkUri(uri, ["clients", i, key, j]))),
          ...URI_KEYS.map((key) => checkUri(client[key], ["clients", i, key])),
        ].filter((issue): issue is IssueDraft => issue !== undefined),
      ),
  },
  {
    file: "clients",
    needs: ["clients"],
    description: "A client with the `authorization_code` grant has at least one redirect URI.",
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i) =>
        client.grant_types.includes("authorization_code") && client.redirect_uris.length === 0
          ? [
              {
                file: "clients",
                at: ["clients", i, "redirect_uris"],
                message: "the authorization_code grant needs at least one redirect URI",
              },
            ]
          : [],
      ),
  },
  {
    file: "clients",
    needs: ["clients", "scopes"],
    description: "Every entry of `allowed_scopes` is declared in scopes.yaml (an identity scope or an API scope) or is `offline_access`.",
    check: ({ clients, scopes }) => {
      const declared = [
        ...scopes.identity_scopes.map((s) => s.name),
        ...scopes.api_resources.flatMap((r) => r.scopes.map((s) => s.name)),
        "offline_access",
      ];
      return forEachClient(clients.clients, (client, i) =>
        client.allowed_scopes.flatMap((scope, j) =>
          declared.includes(scope)
            ? []
            : [
                {
                  file: "clients" as const,
                  at: ["clients", i, "allowed_scopes", j],
                  message: `scope "${scope}" is not declared in scopes.yaml (declared: ${declared.join(", ")})`,
                },
              ],
        ),
      );
    },
  },
  {
    file: "clients",
    needs: ["clients"],
    description:
      "`offline_access` is in `allowed_scopes` exactly when `offline_access: true`, and the `refresh_token` grant needs `offline_access: true`.",
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i): IssueDraft[] => {
        const issues: IssueDraft[] = [];
        const listed = client.allowed_scopes.indexOf("offline_access");
        if (listed >= 0 && !client.offline_access) {
          issues.push({
            file: "clients",
            at: ["clients", i, "allowed_scopes", listed],
            message: "offline_access is allowed but the client does not set offline_access: true",
          });
        }
        if (listed < 0 && client.offline_access) {
          issues.push({
            file: "clients",
            at: ["clients", i, "offline_access"],
            message: 'offline_access: true needs "offline_access" in allowed_scopes',
          });
        }
        const refresh = client.grant_types.indexOf("refresh_token");
        if (refresh >= 0 && !client.offline_access) {
          issues.push({
            file: "clients",
            at: ["clients", i, "grant_types", refresh],
            message: "the refresh_token grant needs offline_access: true",
          });
        }
        return issues;
      }),
  },
  {
    file: "clients",
    needs: ["clients"],
    description: `A client allowed the admin API's scope \`${ADMIN_SCOPE}\` has the \`client_credentials\` grant and no other: the admin API answers a security team's tool, never a user's token (docs/admin-api.md).`,
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i): IssueDraft[] => {
        const listed = client.allowed_scopes.indexOf(ADMIN_SCOPE);
        if (listed < 0 || (client.grant_types.length === 1 && client.grant_types[0] === "client_credentials")) return [];
        return [
          {
            file: "clients",
            at: ["clients", i, "allowed_scopes", listed],
            message: `${ADMIN_SCOPE} is for a client with the client_credentials grant alone (its grant_types: ${client.grant_types.join(", ")})`,
          },
        ];
      }),
  },
  {
    file: "clients",
    needs: ["clients"],
    description:
      "A client with a `signing_key` registers no redirect URI that is a proper prefix of another of its redirect URIs: the MyVendor signature joins redirect_uri and login_hint without a separator, so such a pair would let characters move between them under one signature.",
    check: ({ clients }) =>
      forEachClient(clients.clients, (client, i) => {
        if (client.signing_key === undefined) return [];
        return client.redirect_uris.flatMap((uri, j): IssueDraft[] => {
          const longer = client.redirect_uris.find((other) => other !== uri && other.startsWith(uri));
          return longer === undefined
            ? []
            : [
                {
                  file: "clients",
                  at: ["clients", i, "redirect_uris", j],
                  message: `is a prefix of the redirect URI "${longer}": a client with a signing_key cannot register both (docs/decisions.md, MyVendor)`,
                },
              ];
        });
      }),
  },
];

/** One URI: must parse as absolute and have no `#` (RFC 6749 §3.1.2 forbids fragments in redirect URIs). */
function checkUri(uri: string | undefined, at: IssueDraft["at"]): IssueDraft | undefined {
  if (uri === undefined) return undefined;
  if (!URL.canParse(uri)) return { file: "clients", at, message: "must be an absolute URI (scheme://…)", value: uri };
  if (uri.includes("#")) return { file: "clients", at, message: "must not contain a fragment", value: uri };
  return undefined;
}
