import { fileURLToPath } from "node:url";

/** views/ sits at the repository root; resolving it from this module works from any working directory. */
export const VIEWS_DIR = fileURLToPath(new URL("../../views/", import.meta.url));
