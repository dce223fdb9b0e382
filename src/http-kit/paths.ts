/** Every route of the provider, relative to the issuer. */
export const paths = {
  discovery: "/.well-known/openid-configuration",
  jwks: "/.well-known/openid-configuration/jwks",
  authorize: "/connect/authorize",
  /** SPEC: discouraged alias of authorize with prompt=login. */
  accountLogin: "/Account/Login",
  /** SPEC: the login served inside an iframe of a client's page. */
  iframeAuthorize: "/connect/iframe_authz",
  /** SPEC: the eID login (login_type may be omitted there). */
  eidAuthorize: "/eID/authorize",
  /** Where the upstream eID provider sends the browser back (the eID broker's redirect URI). */
  eidCallback: "/eID/callback",
  token: "/connect/token",
  /** RFC 9126: the pushed authorization request endpoint. */
  pushedAuthorizationRequest: "/connect/par",
  userinfo: "/connect/userinfo",
  endSession: "/connect/endsession",
  /** Where the logout confirmation page posts (end session without an id_token_hint). */
  endSessionConfirm: "/connect/endsession/confirm",
  introspection: "/connect/introspect",
  revocation: "/connect/revocation",
  /** The flow runtime's pages: /interaction/<id>. */
  interaction: "/interaction",
  /** The signed-in user's own page: enrolled factor methods, enroll and remove. */
  account: "/account",
  /** The flows and factor methods drawn as statecharts. */
  diagrams: "/diagrams",
  /** Factor plugins' own routes: /methods/<id>/... */
  methods: "/methods",
  /** Static files of the login pages (stylesheet). */
  assets: "/assets",
  /** Liveness: the process answers (load balancers, systemd, container health checks). */
  healthz: "/healthz",
  /** Readiness: the store answers, the signing keys and the policy are loaded. */
  readyz: "/readyz",
  /** Prometheus metrics: on `metrics.listen`, or here with `metrics.token` (src/metrics/). */
  metrics: "/metrics",
  /** The admin API (docs/admin-api.md): /admin/users/<user>/sessions, /admin/users/<user>/sign-out. */
  admin: "/admin",
} as const;
