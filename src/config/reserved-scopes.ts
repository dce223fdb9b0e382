/** The scope an \`http\` channel directory's client token carries (channels.yaml; the channel service checks it). */
export const CHANNEL_DIRECTORY_SCOPE = "channel.directory";

/** The scope the phone side of a custom QR-code login needs (SPEC: MobileScope; the write-status token must carry it). */
export const CUSTOM_SCAN_SCOPE = "acme.ext.custom_scan";

/**
 * The scope of the admin API (/admin/users/…: list a user's sessions, sign a user out everywhere;
 * docs/admin-api.md). An operator declares it in scopes.yaml, as an API scope of a resource of its own,
 * and grants it to a security team's client in clients.yaml: to a client with the client_credentials
 * grant alone (client-rules.ts), which gets it only when it asks for it by name.
 */
export const ADMIN_SCOPE = "portcullis:admin";
