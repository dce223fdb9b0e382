import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";

/** How long a refused connection may go on sending what we will not read before it is cut. */
const LINGER_MS = 2_000;

/** What node:http's parser (or its request timer) reports, and the status that answers it. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * Answers a request that node:http's parser refuses (a header section over the limit, a malformed
 * request line, a request that timed out) with its 4xx and a clean close.
 *
 * Node's own answer writes the status and destroys the socket at once. When the client is still
 * sending (a large body after an oversized header section) the kernel then answers the unread bytes
 * with a reset, which can throw away the status before the client has read it: the client sees
 * ECONNRESET and cannot tell what happened. Node 24 does this far more often than 20 did. Here the
 * status is written, our side is half-closed (FIN after the status), and what the client still sends
 * is read and discarded for a bounded time — the "lingering close" of RFC 9112 §9.6 — so the client
 * reads a 4xx and an orderly end.
 */
export function answerUnparsableRequests(server: Server): void {
  // The parser reports every further chunk of a connection it already refused: answer once.
  const answered = new WeakSet<Duplex>();
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // A client that went away, or a response already under way: nothing can be said any more.
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const status = STATUS_BY_CODE[error.code ?? ""] ?? 400;
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    socket.on("error", () => socket.destroy());
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
