import { declarationOf, parseAcrValues, type AcrContext } from "../../login-policy/acr-values.ts";
import type { AcrDeclaration, LoginPolicy } from "../../login-policy/login-policy.ts";

/** One value of a request's acr_values and what it matched in login.yaml `acr_values`. */
export interface AcrValueExplained {
  /** As sent. */
  sent: string;
  /** The declaration's name as written in login.yaml; undefined: not declared (voluntary, ignored). */
  declared?: string;
  description?: string;
  /** What the declaration requires, one phrase each. */
  requires: string[];
  /** Why the value was set aside (an earlier value, login_type or fa contradicts it); undefined: taken. */
  setAside?: string;
}

/** Each value of `acrValues` with the declaration it matched, in the order sent (a refused request has none). */
export function explainAcrValues(policy: LoginPolicy, acrValues: string | undefined, context: AcrContext = {}): AcrValueExplained[] {
  const parsed = parseAcrValues(acrValues, policy.acrValues, context);
  if (!parsed.ok) return [];
  // The parser already matched each value to its declaration: read its answer, never match again here.
  const declaredAs = new Map(parsed.requirements.matched.map((m) => [m.sent, m.declared]));
  const setAside = new Map(parsed.requirements.dropped.map((d) => [d.sent, d.reason]));
  return (acrValues ?? "")
    .split(" ")
    .filter((v) => v !== "")
    .map((sent) => {
      const reason = setAside.get(sent);
      const name = declaredAs.get(sent) ?? (reason === undefined ? undefined : declarationOf(sent, policy.acrValues)?.name);
      const declaration = name === undefined ? undefined : policy.acrValues.get(name.toLowerCase());
      if (declaration === undefined) return { sent, requires: [] };
      return {
        sent,
        declared: declaration.name,
        ...(declaration.description !== undefined && { description: declaration.description }),
        requires: requirementsOf(policy, declaration),
        ...(reason !== undefined && { setAside: reason }),
      };
    });
}

function requirementsOf(policy: LoginPolicy, d: AcrDeclaration): string[] {
  const requires: string[] = [];
  if (d.loginType !== undefined) requires.push(`login type ${policy.loginTypes.get(d.loginType)?.name ?? d.loginType}`);
  if (d.argument === "methods") requires.push(`${d.name}:<methods> chooses the methods`);
  if (d.methods !== undefined) requires.push(`one of the methods ${d.methods.join(", ")}`);
  if (d.alone) requires.push("no login_type or fa beside it");
  if (d.channel) requires.push(d.argument === "channel" ? `the channel check (${d.name}:<channel_id>: that channel)` : "the channel check");
  if (d.claims.length > 0) requires.push(`claims ${d.claims.join(", ")}`);
  return requires;
}
