import type { Exchange } from "./exchange.ts";

/**
 * Protocol endpoints are tables of small named steps. Each step checks or loads one thing into the
 * context, throws an OAuthError, or returns to let the next step run; a step that answers (writes the
 * response) ends the table.
 */
export type Step<C> = (ctx: C) => void | Promise<void>;

export interface StepContext {
  readonly ex: Exchange;
}

export async function runSteps<C extends StepContext>(ctx: C, steps: ReadonlyArray<Step<C>>): Promise<void> {
  for (const step of steps) {
    const pending = step(ctx);
    if (pending) await pending; // synchronous steps cost no promise
    if (ctx.ex.res.headersSent) return;
  }
}
