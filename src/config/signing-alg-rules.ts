import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { staticKeyAlg } from "./static-key-alg.ts";

const CHOICES = ["id_token_signed_response_alg", "access_token_signed_response_alg"] as const;

/**
 * Rules between a client's signing algorithms and the keys that sign them. Generated keys cover every
 * algorithm; an operator's static keys cover only those with a current key, and a client asking for
 * another would get no token at all.
 */
export const SIGNING_ALG_RULES: CrossFieldRule[] = [
  {
    file: "clients",
    needs: ["clients", "provider"],
    description:
      "With static keys (provider.yaml `keys.static`), every algorithm a client signs with (`id_token_signed_response_alg`, `access_token_signed_response_alg`, RS256 when unset) has a `current` static key.",
    check: ({ clients, provider }) => {
      const keys = provider.keys.static;
      if (keys === undefined) return [];
      const signed = new Set(keys.filter((k) => k.status === "current").map(staticKeyAlg));
      return clients.clients.flatMap((client, i) =>
        CHOICES.flatMap((name): IssueDraft[] => {
          const alg = client[name];
          if (signed.has(alg)) return [];
          return [
            {
              file: "clients",
              at: ["clients", i, name],
              message: `${alg} has no current key in provider.yaml keys.static (add one, or choose ${[...signed].filter(Boolean).join(" or ") || "another algorithm"})`,
            },
          ];
        }),
      );
    },
  },
];
