import type { CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import type { LoginFile } from "./types.generated.ts";

type AcrValue = NonNullable<LoginFile["acr_values"]>[string];

/** The claims the channel check answers with; the others come from the trusted app's signed assertion. */
const CHANNEL_CLAIMS = ["chnl", "chnl_name", "chnl_icon"];
const APP_CLAIMS = ["gps", "faceid"];
/** The one method whose proof is the trusted app's signed assertion (flows/methods/qrcode). */
const TRUSTED_APP_SCAN = "qrcode";

/** Everything wrong with one declared acr value, each at its key. */
function checkAcrValue(login: LoginFile, name: string, value: AcrValue): IssueDraft[] {
  const at = (...keys: Array<string | number>) => ["acr_values", name, ...keys];
  const issue = (message: string, ...keys: Array<string | number>): IssueDraft => ({ file: "login", at: at(...keys), message });
  const issues: IssueDraft[] = [];
  const types = new Map(Object.keys(login.login_types ?? {}).map((t) => [t.toLowerCase(), t]));
  if (value.login_type !== undefined && !types.has(value.login_type.toLowerCase()))
    issues.push(issue(`login type "${value.login_type}" is not declared under login_types`, "login_type"));
  if (value.login_type !== undefined && value.alone)
    issues.push(issue(`acr value "${name}" cannot both select a login type and stand alone`, "alone"));
  if (value.argument === "methods" && value.login_type === undefined)
    issues.push(issue("argument: methods chooses a login type's methods: add login_type", "argument"));
  if (value.argument === "channel" && !value.channel)
    issues.push(issue("argument: channel names the channel of the channel check: add channel: true", "argument"));
  (value.methods ?? []).forEach((id, i) => {
    if (!Object.hasOwn(login.methods, id)) issues.push(issue(`method "${id}" is not configured under methods`, "methods", i));
  });
  const claims = value.claims ?? [];
  if (claims.some((c) => CHANNEL_CLAIMS.includes(c)) && !value.channel)
    issues.push(issue("chnl, chnl_name and chnl_icon come from the channel check: add channel: true", "claims"));
  if (value.channel && !claims.includes("chnl"))
    issues.push(issue("the channel check answers with the chnl claim: list chnl under claims", "claims"));
  const app = claims.filter((c) => APP_CLAIMS.includes(c));
  if (app.length > 0 && (value.methods === undefined || value.methods.some((m) => m !== TRUSTED_APP_SCAN))) {
    issues.push(
      issue(`${app.join(" and ")} come from the trusted app's signed assertion: methods must name only ${TRUSTED_APP_SCAN}`, "methods"),
    );
  }
  return issues;
}

/** Rules on login.yaml `acr_values`: each declaration names only what this configuration declares, and can be met. */
export const ACR_VALUE_RULES: CrossFieldRule[] = [
  {
    file: "login",
    needs: ["login"],
    description:
      "Each acr value names a declared login type and configured methods, an argument its requirements give a meaning to, and claims its requirements can supply (channel claims with channel: true, gps and faceid with methods [qrcode]); login_type and alone exclude each other.",
    check: ({ login }) => Object.entries(login.acr_values ?? {}).flatMap(([name, value]) => checkAcrValue(login, name, value)),
  },
  {
    file: "login",
    needs: ["login"],
    description: "acr value names are distinct without regard to case (requests match them that way).",
    check: ({ login }) => {
      const seen = new Map<string, string>();
      return Object.keys(login.acr_values ?? {}).flatMap((name): IssueDraft[] => {
        const first = seen.get(name.toLowerCase());
        seen.set(name.toLowerCase(), first ?? name);
        return first === undefined
          ? []
          : [{ file: "login", at: ["acr_values", name], message: `acr value "${name}" differs from "${first}" only in case` }];
      });
    },
  },
];
