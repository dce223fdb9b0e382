import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { ClientConfig } from "./types.generated.ts";
import { checkPublicJwk, privateJwkMember } from "../crypto/client-jwk.ts";
import { isLoopbackHost } from "../http-kit/loopback-url.ts";

/*
 * Rules on how a client of clients.yaml authenticates (docs/client-authentication.md): which method, with
 * which secret or keys, so that no client is left with a method it has no credential for.
 */

const at = (i: number, ...rest: (string | number)[]): IssueDraft["at"] => ["clients", i, ...rest];
const issue = (i: number, path: (string | number)[], message: string): IssueDraft => ({ file: "clients", at: at(i, ...path), message });

/** The method a client ends up with when it names none: today's behaviour. */
function methodOf(client: ClientConfig): NonNullable<ClientConfig["token_endpoint_auth_method"]> | "secret" {
  return client.token_endpoint_auth_method ?? (client.type === "public" ? "none" : "secret");
}

function hasSecret(client: ClientConfig): boolean {
  return client.client_secret_hash !== undefined || client.client_secrets !== undefined;
}

/** The method against the client's type and credentials. */
function checkMethod(client: ClientConfig, i: number): IssueDraft[] {
  const method = methodOf(client);
  const issues: IssueDraft[] = [];
  const secretKey = client.client_secrets !== undefined ? "client_secrets" : "client_secret_hash";
  if (method === "none" && client.type !== "public")
    issues.push(issue(i, ["token_endpoint_auth_method"], "none is for a public client: a confidential client authenticates"));
  if (method !== "none" && client.type === "public")
    issues.push(
      issue(i, ["token_endpoint_auth_method"], `a public client cannot use ${method}: it has no credential (omit the key, or use none)`),
    );
  if (method === "private_key_jwt") {
    if (hasSecret(client))
      issues.push(issue(i, [secretKey], "a private_key_jwt client gets no secret: it proves itself with its key (remove the secret)"));
    if (client.jwks === undefined && client.jwks_uri === undefined)
      issues.push(issue(i, ["token_endpoint_auth_method"], "private_key_jwt needs the client's public keys: jwks or jwks_uri"));
  } else {
    for (const key of ["jwks", "jwks_uri"] as const) {
      if (client[key] !== undefined) issues.push(issue(i, [key], `${key} is for token_endpoint_auth_method: private_key_jwt`));
    }
  }
  if (
    (method === "secret" || method === "client_secret_basic" || method === "client_secret_post") &&
    client.type === "confidential" &&
    !hasSecret(client)
  )
    issues.push(issue(i, ["client_secret_hash"], "a confidential client needs a secret hash (print one with `portcullis hash-secret`)"));
  return issues;
}

/** The two-secret rotation: one place for the secrets, two that differ, and a rotation that ends. */
function checkSecrets(client: ClientConfig, i: number): IssueDraft[] {
  const secrets = client.client_secrets;
  if (secrets === undefined) return [];
  const issues: IssueDraft[] = [];
  if (client.client_secret_hash !== undefined)
    issues.push(
      issue(i, ["client_secret_hash"], "give client_secret_hash or client_secrets, not both (move the hash into client_secrets)"),
    );
  if (secrets.length === 2 && secrets[0]!.hash === secrets[1]!.hash)
    issues.push(issue(i, ["client_secrets", 1, "hash"], "is the same secret as client_secrets[0]"));
  if (secrets.length === 2 && secrets.every((s) => s.expires === undefined))
    issues.push(issue(i, ["client_secrets"], "of two secrets the old one needs an expires: a rotation ends"));
  return issues;
}

/** A party that may hold public keys: a client of clients.yaml or an API resource of scopes.yaml. */
interface KeyHolder {
  jwks?: { keys: Array<{ kid?: string }> };
  jwks_uri?: string;
}

/** Inline keys: public, usable, and told apart by kid when there are several. `at` is the holder's key path. */
export function checkJwks(file: IssueDraft["file"], at: (string | number)[], holder: KeyHolder): IssueDraft[] {
  const keys = holder.jwks?.keys;
  if (keys === undefined) return [];
  const issues: IssueDraft[] = [];
  const add = (path: (string | number)[], message: string) => issues.push({ file, at: [...at, "jwks", "keys", ...path], message });
  keys.forEach((jwk, j) => {
    const member = privateJwkMember(jwk);
    if (member !== undefined) add([j, member], "is a private key member: give only the public key (never the private one)");
    else {
      const problem = checkPublicJwk(jwk as Record<string, unknown>);
      if (problem !== undefined) add([j], problem);
    }
  });
  if (keys.length > 1) {
    keys.forEach((jwk, j) => {
      if (jwk.kid === undefined) add([j], "several keys need a kid each, so an assertion can name its key");
      else if (keys.findIndex((other) => other.kid === jwk.kid) < j) add([j, "kid"], `duplicate kid "${jwk.kid}"`);
    });
  }
  return issues;
}

/** jwks_uri is fetched by the provider: https, or http to this machine only; and the keys are given once. */
export function checkJwksUri(file: IssueDraft["file"], at: (string | number)[], holder: KeyHolder): IssueDraft[] {
  const uri = holder.jwks_uri;
  if (uri === undefined) return [];
  const issue = (message: string): IssueDraft => ({ file, at: [...at, "jwks_uri"], message });
  const issues = holder.jwks !== undefined ? [issue("give the keys once: jwks or jwks_uri, not both")] : [];
  if (!URL.canParse(uri)) return [...issues, issue("must be an absolute URI")];
  const url = new URL(uri);
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return issues;
  return [...issues, issue("must be https (plain http only for a loopback host such as 127.0.0.1)")];
}

export const CLIENT_AUTH_RULES: CrossFieldRule[] = [
  {
    file: "clients",
    needs: ["clients"],
    description:
      "`token_endpoint_auth_method` fits the client: `none` for a public client only; a secret method (or none given, for a confidential client) needs `client_secret_hash` or `client_secrets`; `private_key_jwt` needs exactly one of `jwks` and `jwks_uri` and no secret; `jwks`/`jwks_uri` only with `private_key_jwt`.",
    check: ({ clients }) => clients.clients.flatMap((client, i) => checkMethod(client, i)),
  },
  {
    file: "clients",
    needs: ["clients"],
    description:
      "`client_secrets` is not given together with `client_secret_hash`; its two secrets differ and at least one of them expires (an expired one is a `check-config` warning, not an error: the other keeps working).",
    check: ({ clients }) => clients.clients.flatMap((client, i) => checkSecrets(client, i)),
  },
  {
    file: "clients",
    needs: ["clients"],
    description:
      "`jwks` holds public keys only (no `d`, `p`, `q`, `dp`, `dq`, `qi`, `k`), each a usable RSA (2048 bits or more) or EC P-256 key whose `alg`, if given, fits it, with a distinct `kid` each when there are several; `jwks_uri` is https (plain http only for a loopback host), and not given beside `jwks`.",
    check: ({ clients }) =>
      clients.clients.flatMap((client, i) => [
        ...checkJwks("clients", ["clients", i], client),
        ...checkJwksUri("clients", ["clients", i], client),
      ]),
  },
];

export const API_RESOURCE_AUTH_RULES: CrossFieldRule[] = [
  {
    file: "scopes",
    needs: ["scopes"],
    description:
      "An API resource authenticates at introspection with `api_secret_hash` or with private_key_jwt (`jwks` or `jwks_uri`), not both; its `jwks` and `jwks_uri` follow the clients' rules (public keys only, https or loopback, given once).",
    check: ({ scopes }) =>
      scopes.api_resources.flatMap((resource, i): IssueDraft[] => {
        const at = ["api_resources", i];
        const keyed = resource.jwks !== undefined || resource.jwks_uri !== undefined;
        return [
          ...(keyed && resource.api_secret_hash !== undefined
            ? [
                {
                  file: "scopes" as const,
                  at: [...at, "api_secret_hash"],
                  message: "a resource with keys (jwks, jwks_uri) authenticates with them: remove the ApiSecret",
                },
              ]
            : []),
          ...checkJwks("scopes", at, resource),
          ...checkJwksUri("scopes", at, resource),
        ];
      }),
  },
];
