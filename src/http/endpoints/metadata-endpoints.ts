import type { Infra } from "../../infra/infra.ts";
import { takeScope } from "../../infra/scope.ts";
import type { ProtocolRoute } from "../../http-kit/protocol-route.ts";
import { discoveryDocument } from "./discovery-document.ts";
import { writeJson } from "../../http-kit/write-response.ts";
import { paths } from "../../http-kit/paths.ts";
import { perSnapshot } from "../../snapshot/per-snapshot.ts";

/**
 * GET /.well-known/openid-configuration — serialised once per policy snapshot (a reload changes scopes,
 * login types…). The key ring's algorithms are read then too: they are fixed for a process's life (a
 * generated ring holds every algorithm from its first sync; static keys are read once at start).
 */
export function discoveryEndpoint(infra: Infra): ProtocolRoute {
  const facts = {
    extensionClaims: infra.extensions.flatMap((extension) => extension.manifest.idTokenClaims),
    signingAlgs: infra.keys.keys.algorithms,
    requirePushed: infra.settings.require_pushed_authorization_requests,
  };
  const body = perSnapshot((policy) => JSON.stringify(discoveryDocument(infra.issuer, policy, facts)));
  return {
    path: paths.discovery,
    methods: ["GET", "HEAD"],
    readsBody: false,
    handle: (ex) => writeJson(ex.res, 200, body(takeScope(infra).policy), { cacheable: true }),
  };
}

/** GET /.well-known/openid-configuration/jwks — public keys only, serialised once per key set. */
export function jwksEndpoint(infra: Infra): ProtocolRoute {
  return {
    path: paths.jwks,
    methods: ["GET", "HEAD"],
    readsBody: false,
    handle: (ex) => writeJson(ex.res, 200, infra.keys.keys.jwksJson, { cacheable: true }),
  };
}
