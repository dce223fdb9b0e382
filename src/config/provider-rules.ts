import { createPrivateKey } from "node:crypto";
import type { CrossFieldRule } from "./cross-field-rule.ts";
import { findDuplicates } from "./find-duplicates.ts";
import { parseDuration } from "../time/duration.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { StaticKeyConfig } from "./types.generated.ts";
import { signingAlgOfKey } from "../crypto/signing-alg.ts";
import { staticKeyAlg } from "./static-key-alg.ts";

/** RS256 and PS256 with anything shorter are breakable in practice; RFC 7518 §3.3 and §3.5 set the same floor. */
const MIN_RSA_BITS = 2048;

/** Rules on provider.yaml: the issuer's exact form and operator-managed signing keys. */
export const PROVIDER_RULES: CrossFieldRule[] = [
  {
    file: "provider",
    needs: ["provider"],
    description:
      "Generated keys rotate no faster than hourly, and are announced at least 5 minutes (and less than `rotate_every`) before they sign, so every node and JWKS cache has seen a key before tokens carry it.",
    check: ({ provider }) => {
      const { rotate_every, announce_for } = provider.keys;
      const issues: IssueDraft[] = [];
      if (parseDuration(rotate_every) < 3600)
        issues.push({ file: "provider", at: ["keys", "rotate_every"], message: "must be at least 1h", value: rotate_every });
      if (parseDuration(announce_for) < 300)
        issues.push({ file: "provider", at: ["keys", "announce_for"], message: "must be at least 5m", value: announce_for });
      else if (parseDuration(announce_for) >= parseDuration(rotate_every))
        issues.push({
          file: "provider",
          at: ["keys", "announce_for"],
          message: "must be shorter than keys.rotate_every",
          value: announce_for,
        });
      return issues;
    },
  },
  {
    file: "provider",
    needs: ["provider"],
    description:
      "A Redis or PostgreSQL store needs `secrets.encryption_key`: what the provider keeps there (signing keys) is encrypted with it.",
    check: ({ provider }) =>
      provider.store.url !== "embedded" && provider.secrets.encryption_key === undefined
        ? [
            {
              file: "provider",
              at: ["store", "url"],
              message: "a Redis or PostgreSQL store needs secrets.encryption_key (give it as ${env:NAME} or ${file:PATH})",
            },
          ]
        : [],
  },
  {
    file: "provider",
    needs: ["provider"],
    description:
      "`listen.headers_timeout` is at most `listen.request_timeout` (the headers are part of the request; node:http refuses the opposite).",
    check: ({ provider }) =>
      parseDuration(provider.listen.headers_timeout) > parseDuration(provider.listen.request_timeout)
        ? [
            {
              file: "provider",
              at: ["listen", "headers_timeout"],
              message: "must not be longer than listen.request_timeout",
              value: provider.listen.headers_timeout,
            },
          ]
        : [],
  },
  {
    file: "provider",
    needs: ["provider"],
    description: "`issuer` does not end with `/` (it is compared byte for byte, and endpoint URLs are built by appending to it).",
    check: ({ provider }) =>
      provider.issuer.endsWith("/") ? [{ file: "provider", at: ["issuer"], message: "must not end with /", value: provider.issuer }] : [],
  },
  {
    file: "provider",
    needs: ["provider"],
    description: "Static keys have unique `kid`s and exactly one of them per algorithm is `current`.",
    check: ({ provider }) => {
      const keys = provider.keys.static ?? [];
      const issues: IssueDraft[] = findDuplicates(keys, (k) => k.kid).map(({ index, firstIndex, key }) => ({
        file: "provider",
        at: ["keys", "static", index, "kid"],
        message: `duplicate kid "${key}" (first used by keys.static[${firstIndex}])`,
      }));
      const current = keys.flatMap((k, i) => (k.status === "current" ? [i] : []));
      if (provider.keys.static !== undefined && current.length === 0) {
        issues.push({ file: "provider", at: ["keys", "static"], message: "exactly one key must have status current (none has)" });
      }
      // Per algorithm: each signs with its own current key. A key whose algorithm cannot be told is the key-material rule's.
      const firstOf = new Map<string, number>();
      for (const i of current) {
        const alg = staticKeyAlg(keys[i]!);
        if (alg === undefined) continue;
        const first = firstOf.get(alg);
        if (first === undefined) firstOf.set(alg, i);
        else
          issues.push({
            file: "provider",
            at: ["keys", "static", i, "status"],
            message: `exactly one ${alg} key must have status current (keys.static[${first}] already is)`,
          });
      }
      return issues;
    },
  },
  {
    file: "provider",
    needs: ["provider"],
    description:
      "Each static key's `private_key_pem` is an unencrypted PKCS#8 PEM of an RSA key of at least 2048 bits or an EC P-256 key, and can sign its `alg` (RS256 or PS256 for RSA, ES256 for P-256).",
    check: ({ provider }) =>
      (provider.keys.static ?? []).flatMap((key, i) => {
        const problem = checkPrivateKey(key);
        if (!problem) return [];
        // A key that cannot sign the alg it declares: the declaration is where the operator looks.
        const at = problem.declared ? ["keys", "static", i, "alg"] : ["keys", "static", i, "private_key_pem"];
        return [{ file: "provider" as const, at, message: problem.message }];
      }),
  },
];

/**
 * Why the key cannot sign tokens of its algorithm, or undefined when it can; `declared` when the key
 * is sound but not for the `alg` the entry declares. Never quotes the key material.
 */
function checkPrivateKey({ private_key_pem: pem, alg }: StaticKeyConfig): { message: string; declared?: true } | undefined {
  if (!pem.includes("-----BEGIN PRIVATE KEY-----")) {
    return { message: "must be an unencrypted PKCS#8 PEM (-----BEGIN PRIVATE KEY-----); convert with `openssl pkcs8 -topk8 -nocrypt`" };
  }
  let key;
  try {
    key = createPrivateKey(pem);
  } catch {
    return { message: "is not a readable private key PEM" };
  }
  const own = signingAlgOfKey(key);
  if ("problem" in own) return { message: own.problem };
  const fits = signingAlgOfKey(key, alg);
  if ("problem" in fits) return { message: `does not fit the key: the PEM ${fits.problem}`, declared: true };
  const bits = key.asymmetricKeyDetails?.modulusLength;
  return bits !== undefined && bits < MIN_RSA_BITS
    ? { message: `RSA key is ${bits} bits; at least ${MIN_RSA_BITS} are required` }
    : undefined;
}
