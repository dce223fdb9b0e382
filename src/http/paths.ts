/** Every route of the provider, relative to the issuer. */
export const paths = {
  discovery: "/.well-known/openid-configuration",
  jwks: "/.well-known/openid-configuration/jwks",
  token: "/connect/token",
  introspection: "/connect/introspect",
  revocation: "/connect/revocation",
} as const;
