/** Base name of the cookie that binds an interaction to its browser; scoped to the interaction's path. */
export const INTERACTION_COOKIE = "portcullis_interaction";
