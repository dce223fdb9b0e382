import type { Accepted, Explanation, Refused } from "./explain-authorize-request.ts";
import type { UserReadiness } from "./user-readiness.ts";
import type { AcrValueExplained } from "./acr-explanation.ts";

/** `portcullis policy explain`'s text: one fact a line, the same facts as --json. */
export function formatExplanation(explanation: Explanation, user?: UserReadiness): string {
  const lines = explanation.accepted ? accepted(explanation) : refused(explanation);
  if (user) lines.push(...userLines(user));
  return `${lines.join("\n")}\n`;
}

function refused(r: Refused): string[] {
  const shown =
    r.shownAs === "page"
      ? "an error page in the browser (the client or redirect_uri cannot be trusted, so nothing goes to a redirect URI)"
      : `sent to ${r.redirectUri} (response_mode ${r.responseMode}) as error and error_description, with ${r.state === undefined ? "" : "state and "}iss`;
  return [`refused: ${r.error}`, `description: ${r.description}`, `shown as: ${shown}`];
}

const FLOWS = {
  single_factor: "single_factor (one method)",
  two_factor: "two_factor (one trusted and one untrusted method)",
  second_factor: "second_factor (a third party did the first factor; one method verifies the login_hint's user)",
  eid: "eid (brokered to the upstream eID identity provider)",
};

function accepted(a: Accepted): string[] {
  const { plan } = a;
  const lines = [
    `accepted: client ${a.clientId}, redirect_uri ${a.redirectUri}`,
    `login type: ${loginTypeLine(plan)}`,
    `flow: ${FLOWS[plan.flow]}${a.upstream === undefined ? "" : `: ${a.upstream}`}`,
  ];
  if (plan.upstreamAcr !== undefined)
    lines.push(
      `asks the upstream to perform: ${plan.upstreamAcr.join(" ")} (sent as the upstream's acr_values its acr.forward maps them to); an eID session serves only when its acr is one of them`,
    );
  if (a.methods.length > 0) {
    lines.push("methods offered, in order:");
    const width = Math.max(...a.methods.map((m) => m.id.length));
    a.methods.forEach((m, i) => lines.push(`  ${i + 1}. ${m.id.padEnd(width)}  ${m.class.padEnd(9)}  amr ${m.amr}`));
  }
  if (plan.flow === "two_factor")
    lines.push(
      `must pass: a method of each class (${plan.missingClasses.join(", ")}); an SSO session that has one class is stepped up: only the missing class is asked for`,
    );
  if (a.acrValues.length > 0) lines.push("acr_values (login.yaml acr_values):", ...a.acrValues.map(acrLine));
  if (plan.minimumAcr !== undefined)
    lines.push(
      `minimum acr: ${plan.minimumAcr.value} (${plan.minimumAcr.by.join(" and ")}): a login or SSO session below it is answered unmet_authentication_requirements, never with a code`,
    );
  lines.push(
    `SSO: ${plan.sso.use ? "an existing session is used (prompt=none answers without a page when it suffices), and the login creates or updates one" : "none: no SSO session is read, created or changed"}`,
  );
  lines.push(`login_hint: ${loginHintRule(a)}`);
  lines.push(
    `token request: ${plan.repeatLoginTypeAtToken ? `must send login_type=${plan.loginType} again (else invalid_grant)` : "need not send login_type"}`,
  );
  if (plan.enrollOnFirstUse)
    lines.push(
      "enrollment: a vendor account with none of the offered methods set up sets one up inside the login, after the valid signature (whoever opens its link first)",
    );
  if (a.prompt.length > 0) lines.push(`prompt: ${a.prompt.join(" ")}`);
  lines.push("checks before anything is shown:", ...a.checks.map((c) => `  - ${c}`));
  lines.push("tokens:", `  amr (ID token and access token): ${a.tokens.amr}`, `  acr (ID token and access token): ${a.tokens.acr}`);
  if (a.tokens.sub !== undefined) lines.push(`  sub: ${a.tokens.sub}`);
  for (const [claim, value] of Object.entries(a.tokens.loginClaims)) lines.push(`  ${claim} (ID token and access token): ${value}`);
  return lines;
}

function acrLine(v: AcrValueExplained): string {
  if (v.declared === undefined) return `  ${v.sent}: not declared: voluntary, ignored`;
  const what = v.description === undefined ? "" : ` ${v.description}`;
  if (v.setAside !== undefined) return `  ${v.sent}: matched ${v.declared}, set aside: ${v.setAside}`;
  return `  ${v.sent}: matched ${v.declared}.${what} Requires: ${v.requires.join("; ") || "nothing more"}`;
}

function loginTypeLine(plan: Accepted["plan"]): string {
  if (plan.loginType !== undefined) return `${plan.loginType} (returned to redirect_uri with the code)`;
  if (plan.loginTypeName !== undefined) return `${plan.loginTypeName} (selected by acr_values; no login_type goes back to redirect_uri)`;
  return "none (the default login)";
}

function loginHintRule({ plan }: Accepted): string {
  if (plan.loginHint === "vendor")
    return `required, <client_id>:<account>: the vendor account ${plan.vendorAccount} (also the tokens' sub)`;
  if (plan.loginHint === "required") return "required: it names the user the second factor verifies";
  return "optional: it prefills the user name";
}

function userLines(user: UserReadiness): string[] {
  const lines = [`user ${user.name}${user.sub === undefined ? ": not found" : ` (sub ${user.sub}):`}`];
  for (const m of user.methods) lines.push(`  ${m.id.padEnd(10)} ${m.setUp ? "set up" : "not set up"}${m.note ? ` (${m.note})` : ""}`);
  lines.push(`  could log in: ${user.canSucceed ? "yes" : "no"} — ${user.reason}`);
  return lines;
}
