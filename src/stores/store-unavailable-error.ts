/** Thrown by every store operation whose backend failed or did not answer in time. */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  constructor(
    readonly backend: string,
    options?: { cause?: unknown },
  ) {
    super(`the ${backend} store is unavailable`, options);
  }
}
