import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";
import type { LoginFile } from "../../src/config/types.generated.ts";
import { buildAcrDeclarations } from "../../src/login-policy/build-login-policy.ts";

/** The demo's declared acr values (config/login.yaml `acr_values`: the spec's eight), as the policy keys them. */
export const DEMO_ACR_VALUES = buildAcrDeclarations(
  (parse(readFileSync(resolve(import.meta.dirname, "../../config/login.yaml"), "utf8")) as LoginFile).acr_values,
);
