import { CUSTOM_SCAN_SESSION_CLAIM } from "./phone-scan.ts";
import { incomplete, readStatusWrite, tokenRefused, WriteStatusError } from "./write-status-request.ts";
import type { CustomLoginServices } from "./custom-login-services.ts";
import {
  CUSTOM_SCAN_SCOPE,
  JsonBodyError,
  OAuthError,
  parseScope,
  parseStrictJson,
  toOAuthError,
  writeJson,
  type AccessTokenClaims,
  type Exchange,
  type ProtocolRoute,
} from "../../plugin-contract/index.ts";

const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="portcullis"' };

/**
 * POST /Acme/CustomLogin/WriteStatusOperation (SPEC "Custom QR-code login: write status"): the mobile
 * page writes its custom operation's status. Only the access token the mobile page got for this scan
 * may write — the scanner's, issued to the QR's client with `acme.ext.custom_scan`, on the code of this
 * scan (its `custom_scan_sid`); any other token is 401. Answers `{status, message}` per the spec's table.
 */
export function writeStatusRoute(services: CustomLoginServices): ProtocolRoute {
  const answer = (ex: Exchange, error: unknown) => {
    const known = error instanceof WriteStatusError ? error : unexpected(services, ex, error);
    writeJson(
      ex.res,
      known.httpStatus,
      { status: known.bodyStatus, message: known.message },
      { headers: known.bodyStatus === 401 && known.httpStatus === 401 ? CHALLENGE : {} },
    );
  };
  return {
    path: services.paths.writeStatus,
    methods: ["POST"],
    readsBody: true,
    handle: async (ex) => {
      try {
        const claims = await verifiedToken(services, ex.req.headers.authorization);
        const write = readStatusWrite(jsonBody(ex), services.settings(services.context.policy(ex.req)).maxDataLength);
        const session = await services.sessions.find(write.sessionId);
        if (claims[CUSTOM_SCAN_SESSION_CLAIM] !== write.sessionId)
          throw tokenRefused("token validation failed: the token was not issued for this scan");
        if (!session) throw incomplete("the scan session has ended");
        if (claims.sub !== session.phone.context.scanner || claims.client_id !== session.plan.mobile.clientId)
          throw tokenRefused("token validation failed: the token was not issued for this scan");
        const change = await services.sessions.phone(write.sessionId, write.event(services.context.clock()));
        if (change.outcome === "contended")
          throw new WriteStatusError(400, 409, "the scan session is being changed by another request: try again");
        if (change.outcome !== "applied") throw incomplete(`the scan session has ended (status ${write.status} cannot be written now)`);
        writeJson(ex.res, 200, { status: 200, message: "OK" });
      } catch (error) {
        answer(ex, error);
      }
    },
    // Before the handler: a GET, a body too large or unreadable.
    fail: (ex, error) => {
      const known = toOAuthError(error, services.context.logger, ex);
      // A wrong method or an oversized body keeps its HTTP status (405 with Allow, 413); the body says 400.
      if (known.status < 500) for (const [name, value] of Object.entries(known.headers)) ex.res.setHeader(name, value);
      answer(ex, known.status < 500 ? new WriteStatusError(400, known.status, known.description) : error);
    },
  };
}

/** The caller's access token, valid, with the custom-scan scope; anything else is the table's 401. */
async function verifiedToken(services: CustomLoginServices, header: string | undefined): Promise<AccessTokenClaims> {
  const token = BEARER.exec(header ?? "")?.[1];
  if (!token) throw tokenRefused("token validation failed: a Bearer access token is required");
  let claims: AccessTokenClaims;
  try {
    claims = await services.context.accessTokens.verify(token);
  } catch (error) {
    // A token the verifier refuses is the table's 401; anything else (the store down) is the caller's 501/503, logged once there.
    if (error instanceof OAuthError && error.status < 500) throw tokenRefused("token validation failed");
    throw error;
  }
  if (!parseScope(claims.scope).includes(CUSTOM_SCAN_SCOPE))
    throw tokenRefused(`token validation failed: the token lacks the scope ${CUSTOM_SCAN_SCOPE}`);
  return claims;
}

function jsonBody(ex: Exchange): unknown {
  if (!/^application\/json\s*(;.*)?$/i.test(ex.req.headers["content-type"] ?? "")) throw incomplete("the body must be application/json");
  try {
    return parseStrictJson(ex.body?.toString("utf8") ?? "");
  } catch (error) {
    // Not JSON, or a member sent twice (`"status": -10, "status": 10` reads as a refusal to some and an approval to others).
    throw incomplete(error instanceof JsonBodyError ? error.message : "the body is not valid JSON");
  }
}

/** The table's 501: logged with its stack; a store that is down says so (503) so the page may try again. */
function unexpected(services: CustomLoginServices, ex: Exchange, error: unknown): WriteStatusError {
  const known = toOAuthError(error, services.context.logger, ex);
  return new WriteStatusError(
    501,
    known.status === 503 ? 503 : 500,
    known.status === 503 ? "temporarily unavailable, try again" : "unknown error",
  );
}
