import type { LoginFile } from "../config/types.generated.ts";
import type { AcrDeclaration, LoginPolicy, LoginType, MethodClass } from "./login-policy.ts";

/**
 * The login policy of login.yaml (methods, login types, acr values), with each method's class as its plugin declares it. Throws, naming
 * every problem, when a two-factor login type cannot be passed (it offers no method of some class):
 * the schema and cross-field rules cannot see that, because classes come from the plugins.
 */
export function buildLoginPolicy(login: LoginFile, methodClasses: ReadonlyMap<string, MethodClass>): LoginPolicy {
  const loginTypes = new Map<string, LoginType>();
  const problems: string[] = [];
  for (const [name, declared] of Object.entries(login.login_types ?? {})) {
    const methods = declared.methods ?? [];
    if (declared.flow === "two_factor") {
      for (const wanted of ["trusted", "untrusted"] as const) {
        if (!methods.some((id) => methodClasses.get(id) === wanted))
          problems.push(`login_types.${name}: a two_factor login type must offer a ${wanted} method`);
      }
    }
    loginTypes.set(name.toLowerCase(), {
      name,
      flow: declared.flow,
      methods,
      sso: declared.sso ?? true,
      loginHint: declared.login_hint ?? "optional",
      repeatLoginTypeAtToken: declared.repeat_login_type_at_token ?? false,
      ...(declared.scopes && { scopes: new Set(declared.scopes) }),
      signature: declared.signature ?? false,
      fa: declared.fa ?? true,
      enrollOnFirstUse: declared.enroll_on_first_use ?? false,
      ...(declared.upstream && { upstream: declared.upstream }),
      ...(declared.upstream && { acrForwarded: forwardedAcr(login, declared.upstream) }),
    });
  }
  if (problems.length > 0) throw new Error(`login.yaml: ${problems.join("; ")}`);
  return { methodClasses, defaultMethods: login.default_flow.methods, loginTypes, acrValues: buildAcrDeclarations(login.acr_values) };
}

/** The acr values (lower-cased) an upstream's `acr.forward` names. */
function forwardedAcr(login: LoginFile, upstream: string): ReadonlySet<string> {
  return new Set(Object.keys(login.eid_upstreams?.[upstream]?.acr?.forward ?? {}).map((name) => name.toLowerCase()));
}

/** login.yaml `acr_values` keyed by lower-cased name (the cross-field rules checked what they name). */
export function buildAcrDeclarations(declared: LoginFile["acr_values"]): Map<string, AcrDeclaration> {
  const acrValues = new Map<string, AcrDeclaration>();
  for (const [name, value] of Object.entries(declared ?? {})) {
    acrValues.set(name.toLowerCase(), {
      name,
      ...(value.description !== undefined && { description: value.description }),
      ...(value.login_type !== undefined && { loginType: value.login_type.toLowerCase() }),
      ...(value.argument !== undefined && { argument: value.argument }),
      ...(value.methods !== undefined && { methods: value.methods }),
      alone: value.alone ?? false,
      channel: value.channel ?? false,
      claims: value.claims ?? [],
    });
  }
  return acrValues;
}
