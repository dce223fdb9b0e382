import type { Authentication, AuthorizationRequest } from "../oauth/authorization-request.ts";
import type { OfferedChannel } from "../../flows/channel-choice.flow.ts";
import type { Lang } from "../i18n/lang.ts";
import type { AccountParams } from "./account-params.ts";
import type { LoginFlowInput } from "../../flows/login-flow-setup.ts";
import type { EidFlowInput } from "../../flows/eid.flow.ts";

/**
 * One run of a flow for a person at a browser: a login for an authorize request, a login to the account
 * page, or the enrollment of a factor method by a signed-in user. It holds the flow's persisted snapshot and what is needed to
 * finish. Bound to the browser that started it by a cookie (stored as a hash), and to its forms by a
 * CSRF token.
 */
export type Interaction = FlowInteraction | EidLoginInteraction;

/** The interactions that run a flow on /interaction/<id> pages. */
export type FlowInteraction = LoginInteraction | ChannelChoiceInteraction | AccountLoginInteraction | EnrollmentInteraction;

interface InteractionBase {
  id: string;
  /** SHA-256 of the browser-binding cookie value. */
  browserHash: string;
  csrf: string;
  flowId: string;
  /** Hash of the flow's machine definitions when the snapshot was taken: a changed flow restarts cleanly. */
  flowHash: string;
  /** XState persisted snapshot, never taken while an invoked actor runs. Absent before the first step. */
  snapshot?: unknown;
  /** The flow's states this interaction went through, one per step (runtime/login-path.ts): the audit trail's path. */
  path?: string[];
  /** The audit trail's id of this run (login_id): not a secret, unlike the interaction id in its URL. */
  loginId?: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** A login that answers an authorize request. */
export interface LoginInteraction extends InteractionBase {
  kind: "login";
  request: AuthorizationRequest;
  /** prompt=login over a live session: whom the page says is signed in. */
  signedInAs?: string;
  /** What the flow starts from (absent in interactions stored before plans: the login_hint alone). */
  flowInput?: LoginFlowInput;
  /** A step-up: the methods the session had passed, which count with the flow's toward amr and acr. */
  stepUpFrom?: string[];
}

/** req_chnl with several administered channels: the user picks one before the code is issued. */
export interface ChannelChoiceInteraction extends InteractionBase {
  kind: "channel";
  request: AuthorizationRequest;
  channels: OfferedChannel[];
  /** The fresh login to complete with; absent: the browser's SSO session. */
  login?: Authentication;
}

/** A login to the provider's own account page (no client): it ends in an SSO session and /account. */
export interface AccountLoginInteraction extends InteractionBase {
  kind: "account";
  lang: Lang;
  /** The account page's parameters to return with (absent in interactions saved before they existed). */
  back?: AccountParams;
}

/** A signed-in user enrolling one factor method (from the account page). */
export interface EnrollmentInteraction extends InteractionBase {
  kind: "enrollment";
  sub: string;
  method: string;
  lang: Lang;
  /** The account page's parameters to return with (absent in interactions saved before they existed). */
  back?: AccountParams;
}

/**
 * An eID login (flows/eid.flow.ts) for an authorize request: no pages here. /eID/authorize ran its first
 * step (the snapshot waits for the callback and holds the pending state, nonce and PKCE verifier);
 * /eID/callback finds it by the state sent upstream, from the same browser only (the binding cookie),
 * and sends the upstream's answer into it.
 */
export interface EidLoginInteraction extends InteractionBase {
  kind: "eid";
  request: AuthorizationRequest;
  /** What the eID flow started from: its upstream and the request's options for it. */
  flowInput: EidFlowInput;
}

/**
 * What the creator of an interaction provides; the store adds id, binding, CSRF token and expiry. A
 * creator that ran the flow's first step already (an eID login) gives its snapshot and path too.
 */
export type NewInteraction =
  | NewOf<LoginInteraction>
  | NewOf<ChannelChoiceInteraction>
  | NewOf<AccountLoginInteraction>
  | NewOf<EnrollmentInteraction>
  | NewOf<EidLoginInteraction>;

type NewOf<T extends InteractionBase> = Omit<T, keyof InteractionBase | "flowId" | "flowHash"> &
  Pick<InteractionBase, "flowId" | "flowHash"> &
  Partial<Pick<InteractionBase, "snapshot" | "path">>;
