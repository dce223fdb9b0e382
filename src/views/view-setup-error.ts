/**
 * A problem with the templates or UI strings found at start-up (missing translation key, template
 * syntax, forbidden triple-stash...). Every problem found is listed, each naming its file and key,
 * so one start shows them all.
 */
export class ViewSetupError extends Error {
  static readonly code: string = "ERR_VIEW_SETUP";
  readonly code: string = "ERR_VIEW_SETUP";
  readonly problems: readonly string[];
  override readonly name = "ViewSetupError";

  constructor(problems: readonly string[]) {
    super(`views: ${problems.length} problem(s)\n  - ${problems.join("\n  - ")}`);
    this.problems = problems;
  }
}
