import type { ServerResponse } from "node:http";
import { authenticateClient, type CeilingClient } from "./clients.ts";
import { readForm, sendError, type Handler } from "./http.ts";

/** What one grant type does once the token request's client is known to be allowed to use it. */
export type Grant = (form: URLSearchParams, client: CeilingClient, res: ServerResponse) => void;

/**
 * POST /connect/token for the grant types a ceiling serves: read the form, authenticate the client
 * (client_secret_post), check it may use the grant, then let that grant answer.
 */
export function tokenEndpoint(grants: Readonly<Record<string, Grant>>): Handler {
  const byType = new Map(Object.entries(grants));
  return (req, res) => {
    readForm(req).then(
      (form) => {
        if (!form) return sendError(res, "invalid_request");
        const client = authenticateClient(form);
        if (!client) return sendError(res, "invalid_client");
        const grantType = form.get("grant_type") ?? "";
        const grant = byType.get(grantType);
        if (!grant) return sendError(res, "unsupported_grant_type");
        if (!client.grantTypes.has(grantType)) return sendError(res, "unauthorized_client");
        grant(form, client, res);
      },
      () => res.destroy(),
    );
  };
}
