/**
 * A backend the provider depends on (the LDAP directory) failed or did not answer in time. (The store's
 * StoreUnavailableError is answered alike; the store is a leaf and does not import this.)
 * Requests answer it with 503 `temporarily_unavailable` (a translated page in a browser), never a 500:
 * nothing is wrong with the request, and the same request succeeds once the backend is back.
 */
export class ServiceUnavailableError extends Error {
  static readonly code: string = "ERR_SERVICE_UNAVAILABLE";
  readonly code: string = "ERR_SERVICE_UNAVAILABLE";
  override readonly name: string = "ServiceUnavailableError";
  /** What was unavailable, for the log: "directory". */
  readonly service: string;

  constructor(service: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.service = service;
  }
}
