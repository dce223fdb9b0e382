import { createServer } from "node:http";
import { TOKEN_PATH } from "../code-flow.ts";
import { grantedScopes } from "../ceiling/clients.ts";
import { routes, sendError, sendJson } from "../ceiling/http.ts";
import { tokenEndpoint } from "../ceiling/token-endpoint.ts";
import { LIFETIME_SECONDS, issueAccessToken } from "../ceiling/tokens.ts";
import { serveOnLoopback } from "./loopback-server.ts";

/**
 * The client_credentials ceiling: what a near-perfect Node token endpoint reaches on this machine. The
 * protocol work of the provider's client_credentials grant and nothing else — node:http, no framework, no
 * logging, clients in a Map: read the form, check the client's secret (SHA-256 digests compared with
 * timingSafeEqual), check the scope against the client's, sign one RS256 access token, answer JSON.
 * Listens on a free loopback port, prints `{"port":N}` and serves until killed.
 */
serveOnLoopback(
  createServer(
    routes({
      [`POST ${TOKEN_PATH}`]: tokenEndpoint({
        client_credentials: (form, client, res) => {
          const scopes = grantedScopes(client, form.get("scope"));
          if (!scopes) return sendError(res, "invalid_scope");
          const accessToken = issueAccessToken(client.id, client.id, scopes);
          sendJson(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: LIFETIME_SECONDS, scope: scopes.join(" ") });
        },
      }),
    }),
  ),
);
