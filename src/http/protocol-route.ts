import type { Exchange } from "./exchange.ts";

/** A protocol endpoint served by the protocol router: an exact path, its methods, and its handler. */
export interface ProtocolRoute {
  readonly path: string;
  readonly methods: readonly string[];
  /** Whether the router reads the (size-limited) body before calling the handler. */
  readonly readsBody: boolean;
  handle(ex: Exchange): void | Promise<void>;
}
