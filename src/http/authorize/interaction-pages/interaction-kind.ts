import type { Request, Response } from "express";
import type { Scope } from "../../../infra/scope.ts";
import type { Lang } from "../../../i18n/lang.ts";
import type { Interaction } from "../../../runtime/interaction.ts";
import type { RunnableFlow } from "../../../runtime/login-flows.ts";
import type { BrowserPages } from "../../../views/browser-pages.ts";
import type { PageHeaderOptions } from "../../../views/page-headers.ts";
import type { ViewEngine } from "../../../views/view-engine.ts";
import type { OtherMethod } from "./other-methods.ts";

/**
 * What one kind of interaction (src/runtime/interaction.ts) is to the /interaction/<id> pages. The
 * routes and the step page are the same for every kind; what differs is in one object per kind, each
 * in its own file, and interaction-kinds.ts has the table: a new kind is a file and an entry there.
 */
export interface InteractionKind<I extends Interaction> {
  /** The language its pages speak, when it knows one: the authorize request's, or the account page's. */
  lang(interaction: I): string | undefined;
  /** How its flow runs on the pages; absent for a kind that has none here (an eID login waits for the upstream's callback). */
  readonly onPages?: KindOnPages<I>;
}

export interface KindOnPages<I extends Interaction> {
  /** What its flow starts from. */
  flowInput(interaction: I): unknown;
  /**
   * Whether it may still go on under the policy this request runs on. A removed flow ends every kind
   * (the routes check that); this is what else the kind depends on: its client, its method, a session.
   */
  stillValid(scope: Scope, req: Request, interaction: I): boolean | Promise<boolean>;
  /** Its page for the flow's current step. */
  page(shown: ShownStep<I>): KindPage | Promise<KindPage>;
  /** How it ends once its flow is done (the authorization completes, a session starts, the account page shows). */
  finish(done: FinishedFlow<I>): void | Promise<void>;
}

/** What a kind's page may draw on, besides what every step's page has. */
export interface ShownStep<I extends Interaction> {
  scope: Scope;
  views: ViewEngine;
  interaction: I;
  lang: Lang;
  /** The methods the user may switch to where the flow is (the login page offers them). */
  otherMethods(): OtherMethod[];
}

/** A kind's page: its template, what it adds to every step's data, and the headers it widens. */
export interface KindPage {
  view: string;
  data: Record<string, unknown>;
  headers?: Pick<PageHeaderOptions, "frameAncestors" | "formAction">;
}

/** An interaction whose flow is done, and the request that finished it. */
export interface FinishedFlow<I extends Interaction> {
  scope: Scope;
  pages: BrowserPages;
  req: Request;
  res: Response;
  interaction: I;
  flow: RunnableFlow;
  /** What the flow gave: a login flow's LoginFlowOutput, the channel choice's channel. */
  output: unknown;
  /** The flow's states this interaction went through: the audit trail's path. */
  path: string[];
}
