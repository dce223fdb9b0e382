import { CUSTOM_LOGIN_MANIFEST } from "./custom-login-manifest.ts";

/** The extensions this build carries (src/extensions/installed-extensions.ts starts the same list). */
export const EXTENSION_MANIFESTS = [CUSTOM_LOGIN_MANIFEST] as const;

/** Their config files, after the core ones in CONFIG_FILES. */
export const EXTENSION_CONFIG_FILES = EXTENSION_MANIFESTS.map((manifest) => manifest.configFile);

/** The ID-token claims their logins add. */
export const EXTENSION_ID_TOKEN_CLAIMS: readonly string[] = EXTENSION_MANIFESTS.flatMap((manifest) => manifest.idTokenClaims);

/** Their record kinds, beside the core ones in RECORD_KINDS. */
export const EXTENSION_RECORD_KINDS = { ...CUSTOM_LOGIN_MANIFEST.recordKinds } as const;
