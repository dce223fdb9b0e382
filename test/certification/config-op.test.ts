/**
 * The Config OP certification profile (the suite's oidcc-config-certification-test-plan, static client,
 * discovery): its one module, the discovery document's checks, against the issuer on https.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { send } from "../support/test-provider.ts";
import { startCertificationStand, type CertificationStand } from "./certification-stand.ts";

/** The metadata names OIDC Discovery §3, RFC 8414 and the logout specs define (what the suite knows; other names only warn). */
const KNOWN_METADATA = new Set([
  ...["issuer", "authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri", "registration_endpoint"],
  ...["scopes_supported", "response_types_supported", "response_modes_supported", "grant_types_supported", "acr_values_supported"],
  ...["subject_types_supported", "id_token_signing_alg_values_supported", "display_values_supported", "claim_types_supported"],
  ...["claims_supported", "service_documentation", "claims_locales_supported", "ui_locales_supported", "claims_parameter_supported"],
  ...["request_parameter_supported", "request_uri_parameter_supported", "require_request_uri_registration", "op_policy_uri"],
  ...["token_endpoint_auth_methods_supported", "introspection_endpoint", "revocation_endpoint", "code_challenge_methods_supported"],
  ...["introspection_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported", "end_session_endpoint"],
  ...["prompt_values_supported", "authorization_response_iss_parameter_supported", "frontchannel_logout_supported"],
  ...["frontchannel_logout_session_supported", "backchannel_logout_supported", "backchannel_logout_session_supported"],
  // Registered names other features of this provider may advertise (OAuth Authorization Server Metadata registry).
  ...["dpop_signing_alg_values_supported", "pushed_authorization_request_endpoint", "require_pushed_authorization_requests"],
  ...["token_endpoint_auth_signing_alg_values_supported", "request_object_signing_alg_values_supported"],
  ...["introspection_endpoint_auth_signing_alg_values_supported", "revocation_endpoint_auth_signing_alg_values_supported"],
  ...["userinfo_signing_alg_values_supported", "authorization_signing_alg_values_supported", "require_signed_request_object"],
  ...["tls_client_certificate_bound_access_tokens", "mtls_endpoint_aliases", "check_session_iframe", "op_tos_uri"],
  ...["device_authorization_endpoint", "backchannel_authentication_endpoint", "authorization_details_types_supported"],
]);

describe("Config OP (oidcc-config-certification-test-plan)", { timeout: 60_000 }, () => {
  let stand: CertificationStand;

  beforeAll(async () => {
    stand = await startCertificationStand();
  });
  afterAll(async () => {
    await stand?.close();
  });

  it("oidcc-discovery-endpoint-verification", async () => {
    const answer = await send(`${stand.issuer}/.well-known/openid-configuration`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    const d = answer.json!;

    // Issuer: exactly the URL discovery was fetched from (OIDC Discovery §4.3), a valid https URL without query or fragment.
    expect(d.issuer).toBe(stand.issuer);
    const issuer = new URL(d.issuer as string);
    expect(issuer.protocol).toBe("https:");
    expect(issuer.search + issuer.hash).toBe("");

    // The static-client code flow: response_types_supported has "code".
    expect(d.response_types_supported).toContain("code");
    expect(d.subject_types_supported).toEqual(expect.arrayContaining([expect.stringMatching(/^(public|pairwise)$/)]));
    expect((d.subject_types_supported as string[]).every((t) => t === "public" || t === "pairwise")).toBe(true);
    expect(d.id_token_signing_alg_values_supported).toContain("RS256");

    // Every *_endpoint, and jwks_uri, is an https URL (the suite's "all endpoints are https").
    const endpoints = Object.entries(d).filter(([key]) => key.endsWith("_endpoint") || key === "jwks_uri");
    for (const key of ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"])
      expect(endpoints.map(([k]) => k)).toContain(key);
    for (const [key, value] of endpoints) expect(new URL(value as string).protocol, key).toBe("https:");

    // The JWKS: reachable, keys with kid, distinct kids, public parts only, an RSA signing key.
    const jwks = await send(d.jwks_uri as string);
    expect(jwks.status).toBe(200);
    const keys = jwks.json!.keys as Array<Record<string, unknown>>;
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String));
      expect(key.kty).toEqual(expect.any(String));
      for (const secret of ["d", "p", "q", "dp", "dq", "qi", "k"]) expect(key[secret], `${key.kid} publishes ${secret}`).toBeUndefined();
    }
    expect(keys.some((k) => k.kty === "RSA" && (k.use === undefined || k.use === "sig"))).toBe(true);

    // Request objects: the suite only informs; we say we take neither kind (the Basic plan tests the refusal).
    expect(d.request_parameter_supported).toBe(false);
    expect(d.request_uri_parameter_supported).toBe(false);
    expect(d.request_object_signing_alg_values_supported).toBeUndefined();
    // claims_parameter_supported is informational; a boolean whatever its value (another change may turn it on).
    expect(typeof d.claims_parameter_supported).toBe("boolean");
    // claims_supported only warns; we publish it, with the ID token's own claims.
    expect(d.claims_supported).toEqual(expect.arrayContaining(["sub", "iss", "aud", "exp", "iat"]));
    // grant_types_supported, when present, is a non-empty array; scopes_supported has openid, each a scope token.
    expect((d.grant_types_supported as string[]).length).toBeGreaterThan(0);
    expect(d.grant_types_supported).toContain("authorization_code");
    expect(d.scopes_supported).toContain("openid");
    for (const scope of d.scopes_supported as string[]) expect(scope).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
    // Locales: BCP 47 tags (the suite fails on bad syntax).
    for (const tag of d.ui_locales_supported as string[]) expect(tag).toMatch(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/);
    expect(Array.isArray(d.code_challenge_methods_supported)).toBe(true);

    // Names the suite does not know only warn: ours are login_types_supported (SPEC's login_type) and nothing else.
    expect(Object.keys(d).filter((key) => !KNOWN_METADATA.has(key))).toEqual(["login_types_supported"]);
  });
});
