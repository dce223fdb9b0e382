import type { CrossFieldRule } from "./cross-field-rule.ts";
import { findDuplicates } from "./find-duplicates.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { keyPath } from "./key-path.ts";

/** Rules on scopes.yaml: the scope names a token can carry must be unambiguous. */
export const SCOPE_RULES: CrossFieldRule[] = [
  {
    file: "scopes",
    needs: ["scopes"],
    description: "The `openid` identity scope is declared.",
    check: ({ scopes }) =>
      scopes.identity_scopes.some((s) => s.name === "openid")
        ? []
        : [{ file: "scopes", at: ["identity_scopes"], message: 'the "openid" identity scope must be declared' }],
  },
  {
    file: "scopes",
    needs: ["scopes"],
    description: "Scope names are unique across identity scopes and API scopes, and `offline_access` (built in) is not declared.",
    check: ({ scopes }) => {
      // One list of every declared scope name with where it sits, identity scopes first.
      const names = [
        ...scopes.identity_scopes.map((s, i) => ({ name: s.name, at: ["identity_scopes", i, "name"] })),
        ...scopes.api_resources.flatMap((r, i) =>
          r.scopes.map((s, j) => ({ name: s.name, at: ["api_resources", i, "scopes", j, "name"] })),
        ),
      ];
      const builtIn: IssueDraft[] = names
        .filter((n) => n.name === "offline_access")
        .map((n) => ({ file: "scopes", at: n.at, message: "offline_access is built in: do not declare it" }));
      const duplicates: IssueDraft[] = findDuplicates(names, (n) => n.name).map(({ index, firstIndex, key }) => ({
        file: "scopes",
        at: names[index]!.at,
        message: `duplicate scope name "${key}" (first declared at ${keyPath(names[firstIndex]!.at.slice(0, -1))})`,
      }));
      return [...builtIn, ...duplicates];
    },
  },
  {
    file: "scopes",
    needs: ["scopes"],
    description: "API resource names are unique.",
    check: ({ scopes }) =>
      findDuplicates(scopes.api_resources, (r) => r.name).map(({ index, firstIndex, key }) => ({
        file: "scopes",
        at: ["api_resources", index, "name"],
        message: `duplicate API resource name "${key}" (first used by api_resources[${firstIndex}])`,
      })),
  },
];
