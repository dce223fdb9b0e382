import type { Request, Response } from "express";
import type { Scope } from "../../../infra/scope.ts";
import { resolveLang } from "../../../i18n/lang.ts";
import type { Interaction } from "../../../runtime/interaction.ts";
import { currentView, type StepResult } from "../../../runtime/flow-step.ts";
import { methodRoutePrefix } from "../../../plugin-contract/method-manifest.ts";
import type { RunnableFlow } from "../../../runtime/login-flows.ts";
import { createNonce, writePage } from "../../../views/page-headers.ts";
import type { ViewEngine } from "../../../views/view-engine.ts";
import { interactionPath } from "../interaction-cookie.ts";
import type { KindOnPages } from "./interaction-kind.ts";
import { interactionLang } from "./interaction-kinds.ts";
import { otherMethods } from "./other-methods.ts";

/** The partial name a view is registered under: a method's views are namespaced by its id. */
export const partialName = (owner: string, view: string) => (owner === "flow" ? `flow-${view}` : `method-${owner}-${view}`);

/** A flow's step to show, and how: the interaction and its kind, where the flow is, the status and an error to show. */
export interface StepPage {
  req: Request;
  res: Response;
  interaction: Interaction;
  kind: KindOnPages<Interaction>;
  flow: RunnableFlow;
  result: StepResult;
  status: number;
  errorKey?: string;
}

/**
 * Writes the page of the flow's current step: its view (a method's or the flow's own) inside the
 * kind's page, with the form that posts the next event back to the interaction.
 */
export async function writeStepPage(scope: Scope, views: ViewEngine, step: StepPage): Promise<void> {
  const { req, res, interaction, kind, flow, result } = step;
  const view = currentView(result);
  if (!view) throw new Error(`flow ${flow.id} is in a state without a view and not done`);
  // A flow's own step (the channel chooser) draws from the flow's context; a method's from the method's.
  const methodContext = (view.owner === "flow" ? result.snapshot.context : (result.method?.snapshot.context ?? {})) as Record<
    string,
    unknown
  >;
  const nonce = createNonce();
  const common = {
    csrf: interaction.csrf,
    action: interactionPath(interaction.id),
    nonce,
    errorKey: step.errorKey ?? methodContext.errorKey,
    methodPartial: partialName(view.owner, view.view),
    method: methodContext,
    methodPath: result.method ? methodRoutePrefix(result.method.id) : undefined,
  };
  const lang = resolveLang(interactionLang(interaction), req.headers["accept-language"]);
  const page = await kind.page({ scope, views, interaction, lang, otherMethods: () => otherMethods(result, flow) });
  // Method pages may load their own script (with the nonce) and poll their routes (connect-src 'self').
  writePage(res, step.status, views.render(page.view, { ...common, ...page.data }, lang), {
    nonce,
    connectSrc: ["'self'"],
    ...page.headers,
  });
}
