/** Thrown by every store operation whose backend failed or did not answer in time. */
export class StoreUnavailableError extends Error {
  readonly backend: string;
  override readonly name = "StoreUnavailableError";
  constructor(backend: string, options?: { cause?: unknown }) {
    super(`the ${backend} store is unavailable`, options);
    this.backend = backend;
  }
}
