import type { Logger } from "pino";
import type { Enrollments } from "../enrollments/enrollments.ts";

/**
 * Notes when the user last signed in with each method of a finished login (the account page's "last
 * used"). The login does not wait for it and cannot fail by it: a store that refuses the write costs
 * only the date, and a warning in the log.
 */
export function recordMethodUse(
  provider: { readonly enrollments: Enrollments; readonly logger: Logger },
  login: { sub: string; methods: string[] },
): void {
  provider.enrollments.markUsed(login.sub, new Set(login.methods)).catch((err: unknown) => {
    provider.logger.warn(
      { event: "method_use_not_recorded", sub: login.sub, err: err instanceof Error ? err.message : String(err) },
      "could not record when the methods were last used",
    );
  });
}
