import type { ClientsFile } from "../config/types.generated.ts";

/** How long before a secret's expiry check-config starts saying so. */
export const SECRET_EXPIRY_WARNING_MS = 7 * 86_400_000;

/**
 * One line per client secret of clients.yaml that has expired or expires within a week, for
 * `check-config` (docs/client-authentication.md, "Rotating a secret"): the operator either finishes the
 * rotation (removes the old entry) or hands the client its new secret before the old one stops working.
 */
export function expiringClientSecrets(clients: ClientsFile, now: number): string[] {
  return expiringSecrets(clients, now).map(({ warning }) => warning);
}

/** The same for the provider's log at start and at each reload: one warning each, with the client's id. */
export function logExpiringClientSecrets(logger: { warn(fields: object, message: string): void }, clients: ClientsFile, now: number): void {
  for (const { clientId, warning } of expiringSecrets(clients, now))
    logger.warn({ event: "client_secret_expiring", client_id: clientId }, warning);
}

function expiringSecrets(clients: ClientsFile, now: number): { clientId: string; warning: string }[] {
  return clients.clients.flatMap((client) =>
    (client.client_secrets ?? []).flatMap((secret, i) => {
      if (secret.expires === undefined) return [];
      const at = Date.parse(secret.expires);
      const where = `clients.yaml client ${client.client_id} client_secrets[${i}]`;
      const found = (warning: string) => [{ clientId: client.client_id, warning }];
      if (at <= now) return found(`${where} expired at ${secret.expires}: it is refused; remove it from the list`);
      if (at - now <= SECRET_EXPIRY_WARNING_MS) {
        const other =
          (client.client_secrets ?? []).length > 1
            ? "make sure the client uses the other secret"
            : "add a new secret (client_secrets) and give it to the client";
        return found(`${where} expires at ${secret.expires}: ${other} before then`);
      }
      return [];
    }),
  );
}
