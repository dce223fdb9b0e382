/** The extensions this build carries (src/extensions/installed-extensions.ts starts the same list). */
export const EXTENSION_MANIFESTS = [] as const;

/** Their config files (each manifest's configFile), after the core ones in CONFIG_FILES. */
export const EXTENSION_CONFIG_FILES = [] as const;

/** Their record kinds, beside the core ones in RECORD_KINDS. */
export const EXTENSION_RECORD_KINDS = {} as const;
