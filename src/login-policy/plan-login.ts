import type { OAuthErrorCode } from "../errors/oauth-error.ts";
import { DEFAULT_LOGIN } from "../config/default-login.ts";
import type { AcrMatch, AcrRequirements } from "./acr-values.ts";
import type { MinimumAcr } from "./minimum-acr.ts";
import { acrAskedOfUpstream } from "./acr-asked-of-upstream.ts";
import { firstRepeated, shown, splitMethodList } from "./method-list.ts";
import {
  EID_METHOD,
  EID_TYPE,
  type FlowKind,
  type LoginClaim,
  type LoginHintRule,
  type LoginPolicy,
  type LoginType,
  type MethodClass,
} from "./login-policy.ts";

/** What an authorize request asks of the login, once its protocol parameters are known to be well-formed. */
export interface LoginRequest {
  /** /eID/authorize selects the eID login type when login_type is omitted. */
  endpoint: "authorize" | "eid";
  clientId: string;
  /** The client's allowed_login_types (lower-cased); undefined: every declared type. */
  allowedLoginTypes?: ReadonlySet<string>;
  loginType?: string;
  /** The fa parameter as sent. */
  fa?: string;
  acr: AcrRequirements;
  /** acr_values as sent: what an eID login forwards to its upstream is read from them (acr-asked-of-upstream.ts). */
  acrValues?: string;
  loginHint?: string;
  scopes: readonly string[];
  signature?: string;
}

/** What an SSO session proves: the methods passed in it (step-up compares them with what a plan needs). */
export interface SessionFacts {
  methods: readonly string[];
  /** The session's acr (an eID session's is what its upstream performed). */
  acr?: string;
}

/** What the login must do and what its tokens carry. */
export interface LoginPlan {
  /** The login type as the request named it (returned to redirect_uri with the code); none for the default flow. */
  loginType?: string;
  /** The login type the request selected (by login_type, an acr value or the eID endpoint), as login.yaml declares it. */
  loginTypeName?: string;
  flow: FlowKind;
  /** The methods the login page offers, in order; for a step-up only those of the classes still missing. */
  methods: string[];
  /** Classes the login must still pass (two_factor: both, minus what the session already has). */
  missingClasses: MethodClass[];
  sso: { use: boolean; create: boolean };
  /** The browser's SSO session (the SessionFacts given) proves everything this plan asks: no login is needed. */
  sessionSuffices: boolean;
  loginHint: LoginHintRule;
  /** The account a vendor login is for (`<client_id>:<account>`): also its sub. */
  vendorAccount?: string;
  checkSignature: boolean;
  repeatLoginTypeAtToken: boolean;
  /** flow eid: the upstream eID provider the login is brokered to (login.yaml eid_upstreams). */
  upstream?: string;
  /** flow eid: the declared acr values the request asks the upstream to perform (its `acr.forward` names them); a session serves only with one of them. */
  upstreamAcr?: string[];
  enrollOnFirstUse: boolean;
  /** The declared acr values the request matched (login.yaml `acr_values`), in the order sent. */
  acrMatched: AcrMatch[];
  /** The methods an acr value requires the login to pass one of; undefined: any the flow offers. */
  requiredMethods?: string[];
  claims: { channel?: { id?: string }; channelInfo: boolean; gps: boolean; faceid: boolean };
  /** The acr the login must reach (the client's minimum_acr, an essential acr claim request): below it, unmet_authentication_requirements. */
  minimumAcr?: MinimumAcr;
}

export type PlanError = Extract<
  OAuthErrorCode,
  "invalid_request" | "invalid_scope" | "unauthorized_client" | "unmet_authentication_requirements"
>;
export type PlanResult = { ok: true; plan: LoginPlan } | { ok: false; error: PlanError; description: string };

const CLASSES: readonly MethodClass[] = ["trusted", "untrusted"];
/** Claims made from the trusted app's signed assertion during the login: no SSO session has them. */
const FRESH_CLAIMS: readonly LoginClaim[] = ["gps", "faceid"];

/**
 * The login plan of one authorize request: which flow runs, which methods it offers in which order,
 * whether SSO is used and created, what the token endpoint must check and which claims the tokens get.
 * Pure: the same inputs give the same plan on every node, in the CLI's what-if and in the server.
 */
export function planLogin(policy: LoginPolicy, request: LoginRequest, session?: SessionFacts): PlanResult {
  try {
    return { ok: true, plan: buildPlan(policy, request, session) };
  } catch (error) {
    if (error instanceof PlanRefusal) return { ok: false, error: error.error, description: error.message };
    throw error;
  }
}

class PlanRefusal extends Error {
  static readonly code: string = "ERR_PLAN_REFUSED";
  readonly code: string = "ERR_PLAN_REFUSED";
  readonly error: PlanError;

  constructor(error: PlanError, description: string) {
    super(description);
    this.error = error;
  }
}

const refuse = (description: string, error: PlanError = "invalid_request"): never => {
  throw new PlanRefusal(error, description);
};

function buildPlan(policy: LoginPolicy, request: LoginRequest, session: SessionFacts | undefined): LoginPlan {
  const { acr } = request;
  if (acr.alone !== undefined && (request.loginType !== undefined || request.fa !== undefined))
    refuse(`acr_values ${acr.alone} cannot be combined with login_type or fa`);
  const type = chooseLoginType(policy, request);
  const has = (claim: LoginClaim) => acr.claims.includes(claim);
  const claims = {
    ...(acr.channel && { channel: acr.channel }),
    channelInfo: has("chnl_name") || has("chnl_icon"),
    gps: has("gps"),
    faceid: has("faceid"),
  };
  const required = acr.requiredMethods?.methods;
  const common = { acrMatched: acr.matched, ...(required && { requiredMethods: required }), claims };
  const fresh = FRESH_CLAIMS.some(has);
  if (type === undefined) {
    if (request.fa !== undefined) refuse("fa chooses methods for login_type 2FA or Mfa: name one, or use acr_values 2fa:<methods>");
    const methods = required ?? [...policy.defaultMethods];
    const sessionSuffices =
      session !== undefined && !fresh && (required === undefined || session.methods.some((m) => required.includes(m)));
    return {
      flow: "single_factor",
      methods,
      missingClasses: [],
      sso: { use: true, create: true },
      sessionSuffices,
      loginHint: "optional",
      checkSignature: false,
      repeatLoginTypeAtToken: false,
      enrollOnFirstUse: false,
      ...common,
    };
  }
  checkScopes(type, request.scopes);
  const vendorAccount = checkLoginHint(type, request);
  if (type.signature && request.signature === undefined) refuse(`login_type ${type.name} needs the signature parameter`);
  const offered = narrowToRequired(policy, type, offeredMethods(policy, type, request), acr);
  const missingClasses = type.flow === "two_factor" ? classesMissing(policy, session?.methods ?? [], type.sso, offered) : [];
  const methods = type.flow === "two_factor" ? offered.filter((m) => missingClasses.includes(policy.methodClasses.get(m)!)) : offered;
  const upstreamAcr = type.flow === "eid" ? acrAskedOfUpstream(request.acrValues, policy.acrValues, type.acrForwarded ?? new Set()) : [];
  const sessionProves =
    type.flow === "two_factor" ? missingClasses.length === 0 : type.flow === "eid" && eidSessionProves(session, upstreamAcr);
  const sessionSuffices = type.sso && session !== undefined && !fresh && sessionProves;
  return {
    // Returned to redirect_uri as sent; /eID/authorize, where it may be omitted, returns the type's name.
    ...((request.loginType !== undefined || request.endpoint === "eid") && { loginType: request.loginType ?? type.name }),
    loginTypeName: type.name,
    flow: type.flow,
    methods,
    missingClasses,
    sso: { use: type.sso, create: type.sso },
    sessionSuffices,
    loginHint: type.loginHint,
    ...(vendorAccount !== undefined && { vendorAccount }),
    ...(type.upstream !== undefined && { upstream: type.upstream }),
    ...(upstreamAcr.length > 0 && { upstreamAcr }),
    checkSignature: type.signature,
    repeatLoginTypeAtToken: type.repeatLoginTypeAtToken,
    enrollOnFirstUse: type.enrollOnFirstUse,
    ...common,
  };
}

/**
 * Whether an eID session serves an eID request: it is an eID login, and when the request asks the
 * upstream for acr values, the session's acr (what its upstream performed) is one of them; otherwise
 * the login goes to the upstream again, as a step-up there.
 */
function eidSessionProves(session: SessionFacts | undefined, upstreamAcr: readonly string[]): boolean {
  if (!(session?.methods.includes(EID_METHOD) ?? false)) return false;
  return upstreamAcr.length === 0 || (session!.acr !== undefined && upstreamAcr.includes(session!.acr));
}

/** The login type the request selects (login_type, acr_values 2fa, or the eID endpoint), allowed for this client. */
function chooseLoginType(policy: LoginPolicy, request: LoginRequest): LoginType | undefined {
  let wanted = request.loginType?.toLowerCase();
  const byAcr = request.acr.loginType;
  if (byAcr !== undefined) {
    const name = policy.loginTypes.get(byAcr.type)?.name ?? byAcr.type;
    if (wanted !== undefined && wanted !== byAcr.type)
      refuse(`acr_values ${byAcr.by} asks for login_type ${name}; it cannot be combined with login_type ${shown(request.loginType!)}`);
    wanted = byAcr.type;
  }
  if (request.endpoint === "eid") {
    if (wanted !== undefined && wanted !== EID_TYPE) refuse("/eID/authorize serves login_type eID only");
    wanted = EID_TYPE;
  }
  if (wanted === undefined) {
    // A client limited to login types may not fall back to the default login: it would be weaker than any it was given.
    if (request.allowedLoginTypes !== undefined && !request.allowedLoginTypes.has(DEFAULT_LOGIN))
      refuse(
        `this client may use only login_type ${[...request.allowedLoginTypes].map((t) => policy.loginTypes.get(t)?.name ?? t).join(", ")}: name one`,
        "unauthorized_client",
      );
    return undefined;
  }
  const type = policy.loginTypes.get(wanted);
  if (type === undefined) refuse(`login_type ${shown(request.loginType ?? wanted)} is not declared on this server`);
  if (request.allowedLoginTypes !== undefined && !request.allowedLoginTypes.has(wanted))
    refuse(`this client may not use login_type ${type!.name}`, "unauthorized_client");
  return type;
}

function checkScopes(type: LoginType, scopes: readonly string[]): void {
  if (type.scopes === undefined) return;
  const outside = scopes.find((scope) => !type.scopes!.has(scope));
  if (outside !== undefined) refuse(`login_type ${type.name} allows only the scopes ${[...type.scopes].join(" ")}`, "invalid_scope");
}

/** login_hint by the type's rule; for a vendor login the account it names. */
function checkLoginHint(type: LoginType, request: LoginRequest): string | undefined {
  if (type.loginHint === "optional") return undefined;
  const hint = request.loginHint;
  if (hint === undefined) refuse(`login_type ${type.name} needs login_hint`);
  if (type.loginHint === "required") return undefined;
  const prefix = `${request.clientId}:`;
  if (!hint!.startsWith(prefix) || hint!.length === prefix.length)
    refuse(`login_type ${type.name} needs login_hint <client_id>:<account> naming this client`);
  return hint;
}

/**
 * The type's methods, or the ones fa / 2fa:<methods> choose, in the order chosen. For 2FA the choice
 * narrows the classes it names: a class it names no method of keeps all of the type's (SPEC: `2fa:<methods>`
 * "names the second-verification methods", so `2fa:totp` is a trusted method of the user's choice, then
 * TOTP). The trusted class goes first when it is the one filled in, the untrusted last.
 */
function offeredMethods(policy: LoginPolicy, type: LoginType, request: LoginRequest): string[] {
  const chosen = request.fa !== undefined ? splitMethods(request.fa) : request.acr.methods.length > 0 ? request.acr.methods : undefined;
  if (chosen === undefined) return [...type.methods];
  if (request.fa !== undefined && request.acr.methods.length > 0) refuse("fa and acr_values 2fa:<methods> cannot both choose the methods");
  if (!type.fa) refuse(`login_type ${type.name} fixes its methods: fa cannot choose them`);
  const unknown = chosen.find((m) => !type.methods.includes(m));
  if (unknown !== undefined) refuse(`login_type ${type.name} does not offer the method '${shown(unknown)}'`);
  if (type.flow !== "two_factor") return chosen;
  const classOf = (method: string) => policy.methodClasses.get(method);
  // All of the type's methods of a class the choice names none of; nothing for a class it names.
  const unnamed = (c: MethodClass) => (chosen.some((m) => classOf(m) === c) ? [] : type.methods.filter((m) => classOf(m) === c));
  return [...unnamed("trusted"), ...chosen, ...unnamed("untrusted")];
}

/** fa: method ids separated by `,` or `/` (DESIGN), as acr_values 2fa:<methods>. */
function splitMethods(fa: string): string[] {
  const methods = splitMethodList(fa).map((m) => m.trim());
  if (methods.some((m) => m === "")) refuse("fa has an empty method name");
  const twice = firstRepeated(methods);
  if (twice !== undefined) refuse(`fa names '${shown(twice)}' twice`);
  return methods;
}

/**
 * Classes a two-factor login still needs. The session counts only where the type uses SSO, and only
 * with methods this request offers (2fa:<methods> names the acceptable ones).
 */
function classesMissing(policy: LoginPolicy, sessionMethods: readonly string[], sso: boolean, offered: readonly string[]): MethodClass[] {
  const have = new Set(sso ? sessionMethods.filter((m) => offered.includes(m)).map((m) => policy.methodClasses.get(m)) : []);
  return CLASSES.filter((c) => !have.has(c));
}

/**
 * The offered methods narrowed to those an acr value requires (`methods` in login.yaml `acr_values`):
 * in a two-factor flow each class the required methods belong to keeps only them (app_gps in a 2FA
 * login: the trusted app's scan, then any untrusted method); in the other flows only they remain.
 */
function narrowToRequired(policy: LoginPolicy, type: LoginType, offered: string[], acr: AcrRequirements): string[] {
  const required = acr.requiredMethods;
  if (required === undefined) return offered;
  const classOf = (method: string) => policy.methodClasses.get(method);
  const narrowed = new Set(type.flow === "two_factor" ? required.methods.map(classOf) : CLASSES);
  const kept = offered.filter((m) => !narrowed.has(classOf(m)) || required.methods.includes(m));
  if (!kept.some((m) => required.methods.includes(m))) {
    refuse(`acr_values ${required.by.join(" ")} needs ${required.methods.join(" or ")}, which login_type ${type.name} does not offer here`);
  }
  return kept;
}
