import type { CrossFieldRule } from "./cross-field-rule.ts";

/** Rules on login.yaml: a flow offers only methods that are configured. */
export const LOGIN_RULES: CrossFieldRule[] = [
  {
    file: "login",
    needs: ["login"],
    description: "Every method the default flow offers is configured under `methods`.",
    check: ({ login }) =>
      login.default_flow.methods.flatMap((id, i) =>
        Object.hasOwn(login.methods, id) ? [] : [{ file: "login" as const, at: ["default_flow", "methods", i], message: `method "${id}" is not configured under methods` }],
      ),
  },
];
