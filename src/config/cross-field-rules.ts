import { CLIENT_RULES } from "./client-rules.ts";
import { API_RESOURCE_AUTH_RULES, CLIENT_AUTH_RULES } from "./client-auth-rules.ts";
import type { ConfigData, ConfigFileName, CrossFieldRule } from "./cross-field-rule.ts";
import type { IssueDraft } from "./issue-draft.ts";
import { PROVIDER_RULES } from "./provider-rules.ts";
import { OPERATIONS_RULES } from "./operations-rules.ts";
import { SCOPE_RULES } from "./scope-rules.ts";
import { USER_RULES } from "./user-rules.ts";
import { DIRECTORY_RULES } from "./directory-rules.ts";
import { LOGIN_RULES } from "./login-rules.ts";
import { ACR_VALUE_RULES } from "./acr-value-rules.ts";
import { EID_RULES } from "./eid-rules.ts";
import { CHANNEL_RULES } from "./channel-rules.ts";
import { SIGNING_ALG_RULES } from "./signing-alg-rules.ts";
import { FAPI2_RULES } from "./fapi2-rules.ts";

/** The core's rules that run after schema validation, in the order the docs list them (a plug-in's come with its file). */
export const CORE_CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  ...PROVIDER_RULES,
  ...OPERATIONS_RULES,
  ...CLIENT_RULES,
  ...CLIENT_AUTH_RULES,
  ...SIGNING_ALG_RULES,
  ...FAPI2_RULES,
  ...SCOPE_RULES,
  ...API_RESOURCE_AUTH_RULES,
  ...USER_RULES,
  ...DIRECTORY_RULES,
  ...LOGIN_RULES,
  ...ACR_VALUE_RULES,
  ...EID_RULES,
  ...CHANNEL_RULES,
];

/**
 * Runs each rule whose files all passed the schema and collects every issue. A rule over a file that
 * failed the schema would read values of the wrong type and add noise to the real errors.
 */
export function crossFieldRules(
  data: ConfigData,
  schemaValid: ReadonlySet<ConfigFileName>,
  plugInRules: readonly CrossFieldRule[],
): IssueDraft[] {
  return [...CORE_CROSS_FIELD_RULES, ...plugInRules]
    .filter((rule) => rule.needs.every((file) => schemaValid.has(file)))
    .flatMap((rule) => rule.check(data));
}
