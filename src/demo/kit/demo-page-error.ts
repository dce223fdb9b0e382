/**
 * A demo page's refusal: what the browser sees as an error page with this status. Client mistakes (a
 * missing code, a bad CSRF token, an unknown approval) are 4xx; the provider or the channel service
 * answering badly is 502. The message is shown to the user, so it never holds a stack or a token.
 */
export class DemoPageError extends Error {
  static readonly code: string = "ERR_DEMO_PAGE";
  readonly code: string = "ERR_DEMO_PAGE";
  readonly status: number;
  override readonly name = "DemoPageError";

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
