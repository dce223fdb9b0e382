import type { ServerResponse } from "node:http";
import { authenticateClient, type CeilingClient } from "./clients.ts";
import { readForm, sendError, type Handler } from "./http.ts";

/** What one grant type does once the token request's client is known to be allowed to use it. */
export type Grant = (form: URLSearchParams, client: CeilingClient, res: ServerResponse) => void;

/**
 * POST /connect/token for one grant type (a ceiling serves one): read the form, authenticate the client
 * (client_secret_post), check it may use the grant, then let `grant` answer.
 */
export function tokenEndpoint(grantType: string, grant: Grant): Handler {
  return (req, res) => {
    readForm(req).then(
      (form) => {
        if (!form) return sendError(res, "invalid_request");
        const client = authenticateClient(form);
        if (!client) return sendError(res, "invalid_client");
        if (form.get("grant_type") !== grantType) return sendError(res, "unsupported_grant_type");
        if (!client.grantTypes.has(grantType)) return sendError(res, "unauthorized_client");
        grant(form, client, res);
      },
      () => res.destroy(),
    );
  };
}
