import type { Exchange } from "./exchange.ts";

/** A protocol endpoint served by the protocol router: an exact path, its methods, and its handler. */
export interface ProtocolRoute {
  readonly path: string;
  readonly methods: readonly string[];
  /** Whether the router reads the (size-limited) body of a POST before calling the handler. */
  readonly readsBody: boolean;
  handle(ex: Exchange): void | Promise<void>;
  /**
   * How this route answers an error raised before its handler runs (a method it does not serve, a body
   * too large or unreadable). Browser endpoints answer with a page; without it, the RFC 6749 JSON format.
   */
  fail?(ex: Exchange, err: unknown): void;
}
