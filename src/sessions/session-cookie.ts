/**
 * Base name of the SSO session cookie (the browser's handle on its SsoSession). provider.cookies adds
 * the __Host- prefix behind https: read and write it with `provider.cookies` and this name.
 */
export const SESSION_COOKIE = "portcullis_session";
