/**
 * The name a client's `allowed_login_types` gives the login without a login type (the default flow, or
 * an acr value that selects no login type). login.yaml may not declare a login type by it.
 */
export const DEFAULT_LOGIN = "default";
