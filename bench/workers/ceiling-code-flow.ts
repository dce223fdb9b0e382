import { createServer } from "node:http";
import { AUTHORIZE_PATH, BENCH_SESSION_PATH, TOKEN_PATH } from "../code-flow.ts";
import { authorize, redeemCode } from "../ceiling/code-flow.ts";
import { routes } from "../ceiling/http.ts";
import { openSession } from "../ceiling/sessions.ts";
import { tokenEndpoint } from "../ceiling/token-endpoint.ts";
import { serveOnLoopback } from "./loopback-server.ts";

/**
 * The code flow (SSO) ceiling: what a near-perfect Node authorization server reaches on this machine for
 * a browser that already has a session. The provider's protocol work and nothing else — node:http, no
 * framework, no logging, sessions and codes in Maps (bench/ceiling/code-flow.ts), plus the bench-only
 * session endpoint (setup, not load). Prints `{"port":N}` and serves until killed.
 */
serveOnLoopback(
  createServer(
    routes({
      [`POST ${BENCH_SESSION_PATH}`]: openSession,
      [`GET ${AUTHORIZE_PATH}`]: authorize,
      [`POST ${TOKEN_PATH}`]: tokenEndpoint({ authorization_code: redeemCode }),
    }),
  ),
);
