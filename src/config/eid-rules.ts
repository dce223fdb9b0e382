import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { isLoopbackHttp } from "../http-kit/loopback-url.ts";
import { ONE_FACTOR_ACR } from "./one-factor-acr.ts";

/**
 * Rules on login.yaml's eid_upstreams and the login types that use them: every eid login type names a
 * declared upstream, upstreams cannot mint each other's subs and ask for openid, plain HTTP is for
 * loopback upstreams only (a development upstream among them), and an upstream's acr mapping names only
 * acr values this file declares.
 */
export const EID_RULES: CrossFieldRule[] = [
  {
    file: "login",
    needs: ["login"],
    description: "A login type with flow `eid` names a declared upstream with `upstream`; other login types have none.",
    check: ({ login }) =>
      Object.entries(login.login_types ?? {}).flatMap(([name, type]): IssueDraft[] => {
        if (type.flow !== "eid") {
          return type.upstream === undefined
            ? []
            : [
                {
                  file: "login",
                  at: ["login_types", name, "upstream"],
                  message: `only a login type with flow eid names an upstream (${name} has flow ${type.flow})`,
                },
              ];
        }
        if (type.upstream === undefined)
          return [
            {
              file: "login",
              at: ["login_types", name],
              message: `login type "${name}" has flow eid but names no upstream (add upstream: <an id under eid_upstreams>)`,
            },
          ];
        return Object.hasOwn(login.eid_upstreams ?? {}, type.upstream)
          ? []
          : [
              {
                file: "login",
                at: ["login_types", name, "upstream"],
                message: `upstream "${type.upstream}" is not declared under eid_upstreams`,
              },
            ];
      }),
  },
  {
    file: "login",
    needs: ["login"],
    description:
      "eID upstreams have distinct `sub_prefix`es (one upstream must not mint another's accounts), ask for the `openid` scope, and do not map `sub` (it is `sub_prefix` + the upstream's sub).",
    check: ({ login }) => {
      const seen = new Map<string, string>();
      return Object.entries(login.eid_upstreams ?? {}).flatMap(([id, upstream]): IssueDraft[] => {
        const issues: IssueDraft[] = [];
        const first = seen.get(upstream.sub_prefix);
        if (first === undefined) seen.set(upstream.sub_prefix, id);
        else
          issues.push({
            file: "login",
            at: ["eid_upstreams", id, "sub_prefix"],
            message: `sub_prefix "${upstream.sub_prefix}" is already the prefix of upstream "${first}"`,
          });
        if (!upstream.scopes.split(" ").includes("openid"))
          issues.push({
            file: "login",
            at: ["eid_upstreams", id, "scopes"],
            message: "must include openid (the login needs the upstream's ID token)",
            value: upstream.scopes,
          });
        if (Object.hasOwn(upstream.claims, "sub"))
          issues.push({
            file: "login",
            at: ["eid_upstreams", id, "claims", "sub"],
            message: "sub is not mapped: an eID account's sub is sub_prefix + the upstream's sub",
            pointAtKey: true,
          });
        return issues;
      });
    },
  },
  {
    file: "login",
    needs: ["login"],
    description: "An eID upstream's issuer is https, or http on a loopback host (development and tests).",
    check: ({ login }) =>
      Object.entries(login.eid_upstreams ?? {}).flatMap(([id, upstream]): IssueDraft[] =>
        upstream.issuer.startsWith("https://") || isLoopbackHttp(upstream.issuer)
          ? []
          : [
              {
                file: "login",
                at: ["eid_upstreams", id, "issuer"],
                message: "must be https:// (http:// only on localhost, 127.0.0.1 or [::1])",
                value: upstream.issuer,
              },
            ],
      ),
  },
  {
    file: "login",
    needs: ["login"],
    description: "A `development` upstream (started by this provider, demo only) has a loopback http:// issuer on its `port`.",
    check: ({ login }) =>
      Object.entries(login.eid_upstreams ?? {}).flatMap(([id, upstream]): IssueDraft[] => {
        if (upstream.development === undefined) return [];
        const port = isLoopbackHttp(upstream.issuer) ? new URL(upstream.issuer).port : undefined;
        return port === String(upstream.development.port)
          ? []
          : [
              {
                file: "login",
                at: ["eid_upstreams", id, "issuer"],
                message: `a development upstream's issuer is http://localhost:${upstream.development.port} (loopback, on development.port)`,
                value: upstream.issuer,
              },
            ];
      }),
  },
  {
    file: "login",
    needs: ["login"],
    description:
      "An eID upstream's `acr` mapping names acr values declared under `acr_values` as written there: the keys of `forward`, and the values of `performed` (which may also be 1fa, the one-factor login's acr).",
    check: ({ login }) => {
      const declared = Object.keys(login.acr_values ?? {});
      const unknown = (name: string) => `acr value "${name}" is not declared under acr_values${declaredList(declared)}`;
      return Object.entries(login.eid_upstreams ?? {}).flatMap(([id, upstream]): IssueDraft[] => [
        ...Object.keys(upstream.acr?.forward ?? {})
          .filter((name) => !declared.includes(name))
          .map(
            (name): IssueDraft => ({
              file: "login",
              at: ["eid_upstreams", id, "acr", "forward", name],
              message: unknown(name),
              pointAtKey: true,
            }),
          ),
        ...Object.entries(upstream.acr?.performed ?? {})
          .filter(([, name]) => name !== ONE_FACTOR_ACR && !declared.includes(name))
          .map(
            ([upstreamAcr, name]): IssueDraft => ({
              file: "login",
              at: ["eid_upstreams", id, "acr", "performed", upstreamAcr],
              message: `${unknown(name)}, nor is it ${ONE_FACTOR_ACR}`,
              value: name,
            }),
          ),
      ]);
    },
  },
];

/** " (declared: a, b)", or nothing when none are. */
function declaredList(declared: readonly string[]): string {
  return declared.length > 0 ? ` (declared: ${declared.join(", ")})` : "";
}
