/** A reason the provider cannot start that the operator fixes (a store that is down): one line, no stack. */
export class StartupError extends Error {
  static readonly code: string = "ERR_STARTUP";
  readonly code: string = "ERR_STARTUP";
  override readonly name = "StartupError";
}
