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
}

export interface LoginPolicy {
  /** Every configured method's class, by id. */
  methodClasses: ReadonlyMap<string, MethodClass>;
  /** The default flow's methods, in order (a request without login_type or acr_values). */
  defaultMethods: readonly string[];
  /** Declared login types by lower-cased name. */
  loginTypes: ReadonlyMap<string, LoginType>;
  /**
   * The methods whose proof is the trusted app's signed assertion (the QR scan): the only ones that can
   * carry app_gps and app_faceid. Absent: `qrcode`.
   */
  appMethods?: ReadonlySet<string>;
}

/** The method acr_values must_bfido runs: the trusted app's FIDO2 credential over a QR. */
export const BFIDO_METHOD = "bfido";
/** The method id an eID login records (amr `eid`): a session with it satisfies /eID/authorize. */
export const EID_METHOD = "eid";
const DEFAULT_APP_METHODS: ReadonlySet<string> = new Set(["qrcode"]);
/** The methods that carry the trusted app's signed assertion. */
export const appMethodsOf = (policy: LoginPolicy): ReadonlySet<string> => policy.appMethods ?? DEFAULT_APP_METHODS;

/** The login type acr_values 2fa stands for (SPEC: "equal to login_type=2fa"). */
export const TWO_FACTOR_TYPE = "2fa";
/** The login type /eID/authorize stands for when the request names none. */
export const EID_TYPE = "eid";
