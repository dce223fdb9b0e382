import type { Request, Response, NextFunction, RequestHandler } from "express";

/**
 * Protocol endpoints are tables of small named steps. Each step checks or loads one thing into the
 * context, throws an OAuthError, or returns to let the next step run. The last step writes the response.
 */
export type Step<C> = (ctx: C) => void | Promise<void>;

/** Builds an Express handler that creates a context per request and runs the steps in order. */
export function endpoint<C>(createContext: (req: Request, res: Response) => C, steps: ReadonlyArray<Step<C>>): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = createContext(req, res);
      for (const step of steps) {
        await step(ctx);
        if (res.headersSent) return;
      }
    } catch (err) {
      next(err);
    }
  };
}
