import { paths } from "../http/paths.ts";

/** Base name of the cookie that binds an interaction to its browser; scoped to the interaction's path. */
export const INTERACTION_COOKIE = "portcullis_interaction";

/** The page of one interaction: where its forms post, and the path its binding cookie is scoped to. */
export const interactionPath = (id: string) => `${paths.interaction}/${id}`;
