import type { ShownDate } from "./format-date.ts";
/**
 * The data contract of each page in views/pages/ (documented again at the top of each template and
 * in views/README.md). Type aliases rather than interfaces so that they fit ViewEngine.render's
 * Record<string, unknown>. Strings are shown as text; URLs go through safeUrl (script schemes
 * become about:blank).
 */

/** `error`: untrusted client or redirect_uri at authorize (never redirects), bad interaction links. */
export type ErrorPageData = {
  /** Heading; default: the translated "Something went wrong". */
  title?: string;
  /** OAuth error code, shown small. */
  error: string;
  /** error_description, shown as given. */
  description: string;
  /** A UI string key shown instead of description. */
  descriptionKey?: string;
};

/** `form-post`: OAuth 2.0 Form Post Response Mode. CSP: formAction = [originOf(action)]. */
export type FormPostPageData = {
  action: string;
  fields: { name: string; value: string }[];
  /** CSP nonce for the auto-submit; without it the page shows a Continue button. */
  nonce?: string;
  /** "_top" when the login ran inside an iframe (iframe_authz). */
  target?: string;
};

/** `top-redirect`: leaves the iframe of /connect/iframe_authz for the client's redirect. */
export type TopRedirectPageData = {
  url: string;
  nonce?: string;
};

/** `login`: the frame around one step of a login flow. */
export type LoginPageData = {
  clientName: string;
  csrf: string;
  action: string;
  signedInAs?: string;
  /** A second-factor login's user as the page may show it (src/http/authorize/verifying-account.ts): "Signing in as X". */
  verifyingAccount?: string;
  errorKey?: string;
  /** A registered partial, e.g. "method-password"; rendered with this whole object as context. */
  methodPartial: string;
  method: Record<string, unknown>;
  loginHint?: string;
  /** Posts event=CHOOSE_METHOD&method=<id> with the csrf field. */
  otherMethods?: { id: string; labelKey: string }[];
  /** CSP nonce for a method's own <script> elements. */
  nonce?: string;
  /** Where the current method's routes are mounted (/methods/<id>). */
  methodPath?: string;
  /** The acmeauth://sso/oidc link of the login's authorize request (src/trusted-app/acmeauth-sso.ts appEntryUrl): "Open in the trusted app" on phones. */
  appEntryUrl?: string;
};

/** `enroll`: one step of a method's enrollment machine. */
export type EnrollPageData = {
  methodLabelKey: string;
  csrf: string;
  action: string;
  errorKey?: string;
  methodPartial: string;
  method: Record<string, unknown>;
  nonce?: string;
  methodPath?: string;
};

/** The account pages' parameters and ways out (see src/runtime/account-params.ts). */
type AccountFrame = {
  lang?: string;
  clientId?: string;
  /** "Back to {backName}": derived from a registered client only (src/account/return-link.ts). */
  backUrl?: string;
  backName?: string;
  /** The account page with its parameters. */
  accountUrl: string;
  /** The end-session endpoint. */
  signOutUrl: string;
};

/** `account`: the signed-in user's factor methods, with enroll and remove forms. */
export type AccountPageData = AccountFrame & {
  /** Set when no one is signed in: the page only offers to sign in there. */
  signInUrl?: string;
  userName?: string;
  csrf?: string;
  enrollAction?: string;
  /** "Remove" leads to <removeUrl>?method=<id>, a page that asks first. */
  removeUrl?: string;
  /** A UI string key: what the last action did. */
  notice?: string;
  methods: AccountRow[];
};

/** `account-remove`: asks before a factor method is removed. */
export type AccountRemovePageData = AccountFrame & {
  csrf: string;
  action: string;
  method: string;
  /** The method's label, translated. */
  methodName: string;
};

/** `logout-confirm`: asks before an end-session request without a valid id_token_hint. */
export type LogoutConfirmPageData = {
  csrf: string;
  action: string;
  clientName?: string;
  /** Where "Stay signed in" leads; without it the form posts confirm=no. */
  cancelUrl?: string;
};

/** `logged-out`: front-channel logout frames, then the post-logout redirect. CSP: frameSrc = their origins. */
export type LoggedOutPageData = {
  frontChannelUrls: string[];
  postLogoutRedirectUri?: string;
  /** Needed for the automatic redirect (after the frames load or 3 s). */
  nonce?: string;
};

/** `interaction-expired`: the login link is unknown, used or expired. */
export type InteractionExpiredPageData = {
  backUrl?: string;
};

/** `diagrams`: the index of the flow diagrams this provider runs (GET /diagrams). */
export type DiagramsPageData = {
  /** The diagram pages' own stylesheet (wider card). */
  stylesheetUrl: string;
  /** descriptionKey: a `diagrams.kind.*` UI string; subject: its {subject} (a flow or method id, or ""). */
  diagrams: { name: string; url: string; descriptionKey: string; subject: string }[];
};

/**
 * `diagram`: one machine as a Mermaid statechart (GET /diagrams/<name>). CSP: nonce and
 * inlineStyles (mermaid styles the SVG it inserts; see src/diagrams/diagram-routes.ts).
 */
export type DiagramPageData = {
  name: string;
  descriptionKey: string;
  subject: string;
  /** The Mermaid source, shown as text in <pre class="mermaid"> until mermaid draws it. */
  source: string;
  /** A login type's flow: its name and its plan facts (src/diagrams/login-type-facts.ts), shown beside the chart. */
  plan?: { loginType: string; facts: { labelKey: string; valueKey?: string; value?: string }[] };
  indexUrl: string;
  stylesheetUrl: string;
  /** mermaid's browser bundle. */
  scriptUrl: string;
  /** Without it the page shows the source only. */
  nonce?: string;
};

/** Page name → its data. */
export type PageDataByView = {
  error: ErrorPageData;
  "form-post": FormPostPageData;
  "top-redirect": TopRedirectPageData;
  login: LoginPageData;
  enroll: EnrollPageData;
  account: AccountPageData;
  "account-remove": AccountRemovePageData;
  "logout-confirm": LogoutConfirmPageData;
  "logged-out": LoggedOutPageData;
  "interaction-expired": InteractionExpiredPageData;
  diagrams: DiagramsPageData;
  diagram: DiagramPageData;
};

/** One factor method on the account page (AccountPageData.methods). */
export interface AccountRow {
  id: string;
  labelKey: string;
  setUp: boolean;
  /** What is enrolled: devices, keys, a masked number or address, each with when it was added. */
  items: { text: string; addedAt?: ShownDate }[];
  enrolledAt?: ShownDate;
  lastUsedAt?: ShownDate;
  /** Where a method without an enrollment flow of its own is set up (translated). */
  setUpNote?: string;
  /** The user can set it up here (again, or one more device). */
  canEnroll: boolean;
  /** The user can remove it here. */
  canRemove: boolean;
  /** Enrolling again adds one more (a phone, a key) instead of replacing what is there. */
  addsAnother: boolean;
}
