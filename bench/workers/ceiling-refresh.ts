import { createServer } from "node:http";
import { AUTHORIZE_PATH, BENCH_SESSION_PATH, TOKEN_PATH } from "../code-flow.ts";
import { authorize, redeemCode } from "../ceiling/code-flow.ts";
import { routes } from "../ceiling/http.ts";
import { refreshGrant } from "../ceiling/refresh-tokens.ts";
import { openSession } from "../ceiling/sessions.ts";
import { tokenEndpoint } from "../ceiling/token-endpoint.ts";
import { serveOnLoopback } from "./loopback-server.ts";

/**
 * The refresh ceiling: what a near-perfect Node authorization server reaches on this machine for the
 * refresh_token grant — the client's secret, the token taken once (rotation, reuse revokes the family),
 * its client, expiry and scope, then an ID token and an access token, both RS256, and the successor
 * (bench/ceiling/refresh-tokens.ts). The code flow's routes get each virtual user its first refresh token
 * (setup, not load). Prints `{"port":N}` and serves until killed.
 */
serveOnLoopback(
  createServer(
    routes({
      [`POST ${BENCH_SESSION_PATH}`]: openSession,
      [`GET ${AUTHORIZE_PATH}`]: authorize,
      [`POST ${TOKEN_PATH}`]: tokenEndpoint({ authorization_code: redeemCode, refresh_token: refreshGrant }),
    }),
  ),
);
