import type { Router } from "express";
import type { AnyActorLogic } from "xstate";
import type { ProviderFile } from "../config/types.generated.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { CookieJar } from "../http-kit/cookies.ts";
import type { SsoSessions } from "../sessions/sso-sessions.ts";
import type { ConcurrencyGate } from "../security/concurrency-gate.ts";
import type { AttemptLimiter } from "../security/attempt-limiter.ts";
import type { Enrollments, MethodEnrollments } from "../enrollments/enrollments.ts";
import type { MethodAccountView } from "./method-account-view.ts";
import type { MethodManifest } from "./method-manifest.ts";
import type { PlugInServices } from "./manifest.ts";

/** The two method classes of the spec: a 2FA login needs one of each. */
export type FactorClass = "trusted" | "untrusted";

/** What a login flow (or the enrollment runtime) passes to the method machine it invokes. */
export interface MethodInput {
  /** login_hint of the authorize request: prefills a user name. */
  loginHint?: string;
  /**
   * The user already known: identified by a previous factor (second factors verify this user, not a
   * typed one), or the signed-in user an enrollment machine enrolls.
   */
  sub?: string;
  /**
   * What the trusted app must measure and sign (acr_values app_gps / app_faceid): the trusted-app
   * methods (qrcode) ask the app for it and output it as evidence; other methods ignore it.
   */
  app?: { gps: boolean; faceid: boolean };
}

/**
 * What a method machine outputs when the user passed it: the user, and anything else the method
 * established that tokens may carry later (the face method's `faceid`); the login flow keeps the
 * extra fields as the method's evidence.
 */
export interface MethodOutput {
  sub: string;
  [evidence: string]: unknown;
}

/**
 * Fields the runtime adds to every event it delivers from a form. A form cannot set them: they are
 * reserved, and the runtime overwrites whatever was posted under these names.
 */
export interface RequestFacts {
  /** The client's address (trust_proxy applied): for per-address limits such as sending codes. */
  clientAddress: string;
}

/**
 * The provider's services a plugin may use: a narrow view, not the whole provider, so that a plugin
 * cannot reach the token issuers, the clients or the login policy, and so that this contract does not
 * depend on the composition root that loads the plugins.
 */
export interface PluginServices extends PlugInServices {
  /** provider.yaml's settings (they need a restart, so they never change under a plugin). */
  readonly settings: ProviderFile;
  /** The directory of the policy serving now (actors outlive a request and a reload: src/infra/live-services.ts). */
  readonly users: UserDirectory;
  /** Seals secrets a plugin keeps in the store (TOTP seeds). */
  readonly secretBox: SecretBox;
  /** With `sessions`: who is signed in on a plugin route (enrollment pages). */
  readonly cookies: CookieJar;
  readonly sessions: SsoSessions;
  /** Bounds the password verifications running in this process (the password method). */
  readonly passwordChecks: ConcurrencyGate;
  /** Every method's enrollments: the trusted app's devices serve both qrcode and appotp. */
  readonly enrollments: Enrollments;
  /** The other configured methods' contexts (the trusted app counts a wrong number against qrcode's attempts). */
  readonly methods: ReadonlyMap<string, { readonly context: Pick<PluginContext, "attempts"> }>;
}

/** Everything a plugin's actors and routes may use. */
export interface PluginContext<Settings = Record<string, unknown>> {
  services: PluginServices;
  /** The plugin's own settings from config/login.yaml (`methods.<id>`), validated by its configSchema. */
  settings: Settings;
  /** The method id as configured (the plugin's id). */
  methodId: string;
  /**
   * Failed attempts per account for this method, counted in the shared store so every provider
   * process sees them (`methods.<id>.attempts` in login.yaml, else provider.yaml's password_attempts).
   * Count an attempt *before* checking, answer a refused attempt exactly like a wrong one, and call
   * `succeeded` after a pass.
   */
  attempts: AttemptLimiter;
  /** This method's durable per-user enrollment records. */
  enrollments: MethodEnrollments;
  /** Where the plugin's routes are mounted (`/methods/<id>`), for links in pages and QR codes. */
  routesPath: string;
}

/**
 * A factor method (DESIGN "Flows and factor plugins"): one folder whose index.ts default-exports this
 * object — `flows/methods/<id>/`, or any folder `methods.<id>.from` in login.yaml names. What it is
 * comes first, as data: its manifest (id, route prefix, record kinds, settings schema, machines: see
 * methodManifest), the same shape every plug-in declares (./manifest.ts). The machines are pure: they
 * name their actors, and `actors()` supplies them (all I/O lives there); the runtime wires them in with
 * `machine.provide`. States name their page fragment in `meta.view`, resolved against `views`. UI
 * strings live in the folder's `i18n/<lang>.yaml` (cn, tw, en, jp, vn), keys relative to
 * `method.<id>.`; `label` is required (the "choose another method" list shows it). See
 * flows/README.md for the worked example.
 */
export interface FactorPlugin<Settings = Record<string, unknown>> {
  /** Its id (login.yaml's `methods.<id>`), routes under `/methods/<id>`, record kinds, settings schema and machines. */
  manifest: MethodManifest;
  class: FactorClass;
  /**
   * True when the method finds out who the user is (a password form, a trusted-app scan). False when
   * it verifies a user already known (a TOTP or SMS code): the flow then identifies the user first
   * (login_hint, else a user-name form) and passes `sub` in MethodInput — for an unknown name a decoy
   * sub that has no enrollments, so the method must simply never accept it.
   */
  identifiesUser: boolean;
  /** The amr value the method adds to tokens (DESIGN: the method id; login.yaml `methods.<id>.amr` overrides). */
  amr: string;
  /**
   * How the account page shows the method: what the user's record holds (masked where sensitive), or
   * where the method is set up when it has no enrollment flow of its own. Absent: the page shows the
   * method's own record by its dates alone.
   */
  account?: MethodAccountView;
  /** The actors both machines name, bound to this provider and these settings. */
  actors(context: PluginContext<Settings>): Record<string, AnyActorLogic>;
  /** Handlebars partials by view name (the values of `meta.view` in the machines), as template source. */
  views: Record<string, string>;
  /**
   * Extra HTTP routes, mounted at `/methods/<id>` (e.g. WebAuthn options, a long-poll, a script the
   * partial loads with `<script nonce="{{nonce}}" src="…">`). Pages may fetch them (connect-src 'self').
   */
  routes?(context: PluginContext<Settings>): Router;
  /**
   * Operator enrollment from the CLI (`portcullis methods enroll <user> <id> [key=value ...]`): records
   * an enrollment for `sub` and returns what to show the operator (e.g. an otpauth:// URI to hand over).
   */
  enrollByOperator?(context: PluginContext<Settings>, sub: string, options: Record<string, string>): Promise<string>;
  /**
   * True when `sub` can pass the method with no enrollment record (an e-mail code to the directory's
   * address): a flow that checks what the user has set up (a step-up's second factor) counts it as set up.
   */
  usableWithoutEnrollment?(context: PluginContext<Settings>, sub: string): Promise<boolean>;
}
