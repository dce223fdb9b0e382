import type { Extension } from "./contract/extension.ts";
import { customLoginExtension } from "./custom-login/custom-login-extension.ts";

/** The extensions the provider starts, in the order of EXTENSION_MANIFESTS (a test checks they agree). */
export const INSTALLED_EXTENSIONS: readonly Extension[] = [customLoginExtension];
