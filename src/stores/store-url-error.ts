/** A `store.url` the provider cannot use (malformed, unknown scheme or parameter): an operator's mistake, told in one line. Never quotes a password. */
export class StoreUrlError extends Error {
  static readonly code: string = "ERR_STORE_URL";
  readonly code: string = "ERR_STORE_URL";
  override readonly name = "StoreUrlError";
}
