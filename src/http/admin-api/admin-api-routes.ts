import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import { ADMIN_SCOPE } from "../../config/reserved-scopes.ts";
import { oauthError } from "../../errors/oauth-error.ts";
import type { AuditActor } from "../../audit/audit-event.ts";
import { findAccountHolder, listUserAccess } from "../../sessions/user-access.ts";
import { signOutUser } from "../../sessions/sign-out-user.ts";
import { bearerClaims, requireBearer, requireScopes } from "../middleware/require-bearer.ts";
import { ADMIN_PATHS, adminOperation, type AdminOperation } from "./admin-operation.ts";

/**
 * The admin API (docs/admin-api.md), for a security team's tools: JSON out, a client_credentials access
 * token carrying the admin scope in, the same service as `portcullis users` (src/sessions/user-access.ts,
 * sign-out-user.ts):
 *
 *   GET  /admin/users/<user>/sessions  → what the user holds: sessions, refresh-token families, access tokens
 *   POST /admin/users/<user>/sign-out  → ends all of it on every node, back-channel logout awaited; what it ended
 *
 * No token, or a bad one → 401 with a challenge; a token without the admin scope, or a user's token
 * (only a client's own token may act here) → 403 insufficient_scope; an unknown user → 404; another
 * path → 404, another method → 405. Every call, allowed or refused, is an admin.request audit event
 * (with the calling client when its token was valid); the acts themselves are user.sessions_listed and
 * user.signed_out.
 */
export function adminApiRoutes(infra: Infra): Router {
  const router = express.Router();
  router.use(auditEveryCall(infra));
  // Verified first, the scope checked after: a refused call's audit names the client that made it. A
  // DPoP token's proof names the issuer's URL of the call (the provider serves its routes under the issuer).
  router.use(requireBearer(infra.accessTokenVerifier, { dpop: { proofs: infra.dpop, baseUrl: infra.issuer } }));
  router.use(requireScopes([ADMIN_SCOPE]));
  router.use((_req, res, next) => {
    const claims = bearerClaims(res);
    // A client_credentials token's sub is its client (no client_id may equal a user's sub: a config rule).
    if (claims.sub !== claims.client_id)
      return next(
        oauthError("insufficient_scope", "the admin API takes a client's own token (client_credentials), not a user's", {
          headers: { "WWW-Authenticate": `Bearer realm="portcullis", error="insufficient_scope", scope="${ADMIN_SCOPE}"` },
        }),
      );
    next();
  });
  router.get(ADMIN_PATHS.sessions, (req, res) => answer(infra, { operation: "sessions", user: req.params.user! }, res));
  router.post(ADMIN_PATHS.sign_out, (req, res) => answer(infra, { operation: "sign_out", user: req.params.user! }, res));
  // What no route served: an operation's path with another method, or no operation at all.
  router.use((req, _res, next) => {
    const call = adminOperation(req.path);
    if (call === undefined) return next(oauthError("not_found", "no such endpoint"));
    const allowed = call.operation === "sessions" ? "GET" : "POST";
    next(oauthError("invalid_request", `use ${allowed}`, { status: 405, headers: { Allow: allowed } }));
  });
  return router;
}

/** Carries out a call: the user named, then the act, answered as JSON. */
async function answer(infra: Infra, call: AdminOperation, res: Response): Promise<void> {
  // One scope for the call: the directory and the clients of the policy serving when it began.
  const { policy } = takeScope(infra);
  const user = await findAccountHolder(policy.users, call.user);
  if (user === undefined) throw oauthError("not_found", "no such user");
  const actor: AuditActor = { by: "admin_api", client_id: bearerClaims(res).client_id };
  const body = call.operation === "sessions" ? await listUserAccess(infra, user, actor) : await signOutUser(infra, policy, user, actor);
  res.set("Cache-Control", "no-store").json(body);
}

/** Records each call once it is answered, with its status, whatever answered it. */
function auditEveryCall(infra: Infra): RequestHandler {
  return (req: Request, res: Response, next) => {
    // Read now, while the path is the router's own: by the time an error answers, Express has put the mount path back.
    const call = adminOperation(req.path);
    res.once("finish", () => {
      const clientId = (res.locals.bearer as { client_id?: unknown } | undefined)?.client_id;
      infra.audit.record({
        type: "admin.request",
        operation: call?.operation ?? "unknown",
        status: res.statusCode,
        ...(typeof clientId === "string" && { client_id: clientId }),
        ...(call !== undefined && { user: call.user }),
      });
    });
    next();
  };
}
