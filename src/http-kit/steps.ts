import type { Exchange } from "./exchange.ts";

/**
 * Protocol endpoints are tables of small named steps. Each step checks or loads one thing, throws an
 * OAuthError, or answers (writes the response), which ends the run. A step returns the fields it adds
 * to the context, or nothing, and the steps after it see those fields typed as present: the table's
 * type grows phase by phase, so no later step has to assert that an earlier one ran.
 *
 * The rule that makes that true: a step that adds fields returns them every time it lets the run go
 * on. Returning nothing is for a step that adds nothing, or that has answered.
 */
export interface StepContext {
  readonly ex: Exchange;
}

/** The fields one step adds to the context. */
type Fields = Record<string, unknown>;

/** What a step returns: the fields it adds, or nothing (void: it only checks, or it answered), or a promise of either. */
// biome-ignore lint/suspicious/noConfusingVoidType: a step that only checks or answers returns void, and adds nothing.
type StepResult = Fields | undefined | void | Promise<Fields | undefined | void>;

/** A step as the runner holds it: any context in, fields, nothing or a promise of either out. */
type AnyStep = (ctx: never) => unknown;

/**
 * The context after a step: its fields on top of (in place of any of the same name) the ones before,
 * flattened so that an editor or a type error shows one plain object type.
 */
type Grown<C, A> = [FieldsOf<A>] extends [never] ? C : Flat<Omit<C, keyof FieldsOf<A>> & FieldsOf<A>>;
/** What a step's result adds: its fields, not the nothing it returns on the way that answered. */
type FieldsOf<A> = A extends Fields ? A : never;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * A step table under construction, and then the table a route runs: `Start` is what the route hands
 * in, `C` what the next step added with `.step()` will see. Built once per route, when the routes are
 * made; `.step()` returns a new table, so a table is never changed once it is used.
 */
export class Steps<Start extends StepContext, C = Start> {
  readonly #table: readonly AnyStep[];
  /** Never set: names the context the steps end with, for Partway. */
  declare readonly ends?: C;

  constructor(table: readonly AnyStep[] = []) {
    this.#table = table;
  }

  /** The table with one more step at its end. */
  step<R extends StepResult>(step: (ctx: C) => R): Steps<Start, Grown<C, Awaited<R>>> {
    return new Steps<Start, Grown<C, Awaited<R>>>([...this.#table, step]);
  }

  /**
   * Runs the steps on `ctx` in order, merging what each adds into that one object (no copy per step),
   * until one answers or throws. The caller keeps `ctx`: after a throw it holds what the steps that ran
   * added (see Partway).
   */
  async run(ctx: Start): Promise<void> {
    const res = ctx.ex.res;
    for (const step of this.#table) {
      let added = (step as (ctx: Start) => unknown)(ctx);
      // Synchronous steps cost no promise: only a promise is awaited.
      if (added instanceof Promise) added = await added;
      if (res.headersSent) return;
      if (added) Object.assign(ctx, added);
    }
  }
}

/** A new, empty step table for a route that starts its requests with a `Start`. */
export function steps<Start extends StepContext>(): Steps<Start> {
  return new Steps<Start>();
}

/**
 * The context as an error handler sees it, whichever step failed: the start, and every later field
 * perhaps present.
 */
export type Partway<T> = T extends Steps<infer Start, infer C> ? Flat<Start & Partial<Omit<C, keyof Start>>> : never;
