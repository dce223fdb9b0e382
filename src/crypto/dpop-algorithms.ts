/**
 * The DPoP proof algorithms accepted (asymmetric only, RFC 9449 §4.2): advertised in discovery and in
 * every DPoP challenge. Here rather than beside the proof checks because a client's own list (a FAPI 2.0
 * client's leaves RS256 out) is part of the client's record, which the checks read.
 */
export const DPOP_ALGORITHMS = ["ES256", "PS256", "RS256", "EdDSA"] as const;
export type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];
