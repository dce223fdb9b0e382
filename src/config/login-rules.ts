import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { DEFAULT_LOGIN } from "./default-login.ts";

const declaredTypes = (types: Record<string, unknown> | undefined) => new Set(Object.keys(types ?? {}).map((name) => name.toLowerCase()));

/**
 * A method a flow names that `methods` lacks. The configured ids are listed: the usual cause is a key
 * renamed or mistyped there (`totpp:`), which the list shows at once.
 */
function unconfiguredMethod(login: { methods: Record<string, unknown> }, id: string, at: Array<string | number>): IssueDraft {
  const configured = Object.keys(login.methods);
  return {
    file: "login",
    at,
    message: `method "${id}" is not configured under methods (configured: ${configured.length === 0 ? "none" : configured.join(", ")})`,
  };
}

/** Rules on login.yaml: flows offer only configured methods; login types are distinct and usable. */
export const LOGIN_RULES: CrossFieldRule[] = [
  {
    file: "login",
    needs: ["login"],
    description: "Every method the default flow offers is configured under `methods`.",
    check: ({ login }) =>
      login.default_flow.methods.flatMap((id, i) =>
        Object.hasOwn(login.methods, id) ? [] : [unconfiguredMethod(login, id, ["default_flow", "methods", i])],
      ),
  },
  {
    file: "login",
    needs: ["login"],
    description:
      "Every login type offers at least one method (except eID, whose upstream logs the user in), each configured under `methods`.",
    check: ({ login }) =>
      Object.entries(login.login_types ?? {}).flatMap(([name, type]): IssueDraft[] => {
        const methods = type.methods ?? [];
        if (type.flow !== "eid" && methods.length === 0)
          return [{ file: "login", at: ["login_types", name], message: `login type "${name}" offers no method (add methods: [...])` }];
        return methods.flatMap((id, i) =>
          Object.hasOwn(login.methods, id) ? [] : [unconfiguredMethod(login, id, ["login_types", name, "methods", i])],
        );
      }),
  },
  {
    file: "login",
    needs: ["login"],
    description:
      "Login type names are distinct without regard to case (requests match them that way), and none is `default` (reserved for allowed_login_types).",
    check: ({ login }) => {
      const seen = new Map<string, string>();
      return Object.keys(login.login_types ?? {}).flatMap((name): IssueDraft[] => {
        const first = seen.get(name.toLowerCase());
        seen.set(name.toLowerCase(), first ?? name);
        if (name.toLowerCase() === DEFAULT_LOGIN)
          return [
            {
              file: "login",
              at: ["login_types", name],
              message: `"${name}" is reserved: a client's allowed_login_types names the login without a login type by it`,
            },
          ];
        return first === undefined
          ? []
          : [{ file: "login", at: ["login_types", name], message: `login type "${name}" differs from "${first}" only in case` }];
      });
    },
  },
  {
    file: "clients",
    needs: ["clients", "login"],
    description: "A client's `allowed_login_types` name login types declared in login.yaml, or `default` (the login without a login type).",
    check: ({ clients, login }) => {
      const declared = declaredTypes(login.login_types);
      return clients.clients.flatMap((client, c) =>
        (client.allowed_login_types ?? []).flatMap((name, i): IssueDraft[] =>
          declared.has(name.toLowerCase()) || name.toLowerCase() === DEFAULT_LOGIN
            ? []
            : [
                {
                  file: "clients",
                  at: ["clients", c, "allowed_login_types", i],
                  message: `login type "${name}" is not declared under login_types in login.yaml`,
                },
              ],
        ),
      );
    },
  },
  {
    file: "clients",
    needs: ["clients", "login"],
    description:
      "A client with `minimum_acr: 2fa` may use a two-factor login type (`flow: two_factor`, within its allowed_login_types) and not the password grant: no other login reaches 2fa, so without one every login of the client would end in unmet_authentication_requirements, and a password grant would be a weaker login.",
    check: ({ clients, login }) =>
      clients.clients.flatMap((client, c): IssueDraft[] => {
        if (client.minimum_acr !== "2fa") return [];
        if (client.grant_types.includes("password"))
          return [
            {
              file: "clients",
              at: ["clients", c, "minimum_acr"],
              message: "2fa cannot hold for the password grant, whose logins are one password: drop one of them",
              value: client.minimum_acr,
            },
          ];
        const allowed = client.allowed_login_types?.map((name) => name.toLowerCase());
        const usable = Object.entries(login.login_types ?? {}).some(
          ([name, type]) => type.flow === "two_factor" && (allowed === undefined || allowed.includes(name.toLowerCase())),
        );
        return usable
          ? []
          : [
              {
                file: "clients",
                at: ["clients", c, "minimum_acr"],
                message:
                  "2fa needs a login type with flow two_factor that this client may use (login.yaml login_types, allowed_login_types)",
                value: client.minimum_acr,
              },
            ];
      }),
  },
];
