/** A reason the provider cannot start that the operator fixes (a store that is down): one line, no stack. */
export class StartupError extends Error {
  override readonly name = "StartupError";
}
