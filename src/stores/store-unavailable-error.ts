/** Thrown by every store operation whose backend failed or did not answer in time. */
export class StoreUnavailableError extends Error {
  static readonly code: string = "ERR_STORE_UNAVAILABLE";
  readonly code: string = "ERR_STORE_UNAVAILABLE";
  readonly backend: string;
  override readonly name = "StoreUnavailableError";
  constructor(backend: string, options?: { cause?: unknown }) {
    super(`the ${backend} store is unavailable`, options);
    this.backend = backend;
  }
}
