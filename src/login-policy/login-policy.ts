/**
 * The login policy as the login plan reads it: the methods with their class, the default flow, and the
 * declared login types, built once from config/login.yaml (and the plugins' classes) per policy snapshot.
 * Plain data, no I/O: the authorize endpoint, the runtime, the diagrams and `portcullis policy explain`
 * all plan from the same value.
 */

/** DESIGN: trusted-device methods (qrcode, appotp, password) and the others (totp, fido, sms, email, face). */
export type MethodClass = "trusted" | "untrusted";

/** Which machine runs a login (flows/*.flow.ts). */
export type FlowKind = "single_factor" | "two_factor" | "second_factor" | "eid";

/** How login_hint is read: absent or a prefill, the user's name, or `<client_id>:<account>` (MyVendor). */
export type LoginHintRule = "optional" | "required" | "vendor";

export interface LoginType {
  /** As declared in login.yaml (requests match it without regard to case). */
  name: string;
  flow: Exclude<FlowKind, "single_factor">;
  /** Offered in this order. */
  methods: readonly string[];
  /** Uses an existing SSO session and creates or updates one; false leaves no SSO state at all. */
  sso: boolean;
  loginHint: LoginHintRule;
  repeatLoginTypeAtToken: boolean;
  /** The only scopes a request of this type may ask for; undefined: the client's own limit. */
  scopes?: ReadonlySet<string>;
  signature: boolean;
  /** Whether fa (or acr_values 2fa:<methods>) may choose and order the offered methods. */
  fa: boolean;
  enrollOnFirstUse: boolean;
  /** flow eid: the upstream eID provider (an id under eid_upstreams, provider.eid.begin's first argument). */
  upstream?: string;
  /** flow eid: the declared acr values (lower-cased) the upstream's `acr.forward` names: what a request can ask of the upstream. */
  acrForwarded?: ReadonlySet<string>;
}

/** The login claims an acr value can add to the tokens (login.yaml `acr_values.<value>.claims`). */
export type LoginClaim = "chnl" | "chnl_name" | "chnl_icon" | "gps" | "faceid";

/** What one acr_values value requires (login.yaml `acr_values`, the spec's table). */
export interface AcrDeclaration {
  /** As declared in login.yaml (requests match it without regard to case). */
  name: string;
  description?: string;
  /** The login type it selects (lower-cased, as LoginPolicy.loginTypes keys it). */
  loginType?: string;
  /** What `<value>:<argument>` names; undefined: the value takes no argument. */
  argument?: "methods" | "channel";
  /** The login must pass one of these methods. */
  methods?: readonly string[];
  /** No login_type, fa or login-type-selecting value beside it. */
  alone: boolean;
  /** The channel check (its answer is the chnl claim). */
  channel: boolean;
  claims: readonly LoginClaim[];
}

export interface LoginPolicy {
  /** Every configured method's class, by id. */
  methodClasses: ReadonlyMap<string, MethodClass>;
  /** The default flow's methods, in order (a request without login_type or acr_values). */
  defaultMethods: readonly string[];
  /** Declared login types by lower-cased name. */
  loginTypes: ReadonlyMap<string, LoginType>;
  /** Declared acr_values values by lower-cased name. */
  acrValues: ReadonlyMap<string, AcrDeclaration>;
}

/** The method id an eID login records (amr `eid`): a session with it satisfies /eID/authorize. */
export const EID_METHOD = "eid";
/** The login type /eID/authorize stands for when the request names none. */
export const EID_TYPE = "eid";
