/**
 * What a plug-in declares before any of its code runs — its manifest and, for an extension, its config
 * file's rules — and the names and shapes a flow's definition refers to. The config loader, the
 * diagrams and the CLI read these on every command (`portcullis --help` loads every command), so this
 * module stays light: it imports no service, no HTTP and no delivery code, unlike the rest of the
 * contract (index.ts, which re-exports it). Manifests, config rules and machine definitions import from here.
 */
export type { PlugInConfig, PlugInManifest } from "./manifest.ts";
export { methodManifest, type MethodMachines, type MethodManifest } from "./method-manifest.ts";
export type { ExtensionManifest } from "./extension.ts";
export type { ConfigData, CrossFieldRule } from "../config/cross-field-rule.ts";
export type { IssueDraft } from "../config/issue-draft.ts";
export { findDuplicates } from "../config/find-duplicates.ts";
export { CUSTOM_SCAN_SCOPE } from "../config/reserved-scopes.ts";
export type { FactorClass, MethodInput, MethodOutput } from "./factor-plugin.ts";
export type { EidBeginOptions, EidPending } from "../eid/eid-upstream.ts";
export type { EidFailure } from "../eid/eid-error.ts";
export { EID_METHOD } from "../login-policy/login-policy.ts";
