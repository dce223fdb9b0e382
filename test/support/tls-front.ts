/**
 * A TLS terminator on loopback in front of a plain TCP server: what an ldaps:// port is to a client. Each
 * connection is decrypted here and piped to `targetPort`, so a suite tests a client's TLS (certificate
 * checks, a CA file) against a server that has none of its own.
 */
import { connect, type AddressInfo } from "node:net";
import { createServer } from "node:tls";

export interface TlsFront {
  port: number;
  close(): Promise<void>;
}

export async function startTlsFront(options: { targetPort: number; key: string; cert: string }): Promise<TlsFront> {
  const server = createServer({ key: options.key, cert: options.cert }, (secure) => {
    const plain = connect(options.targetPort, "127.0.0.1");
    secure.pipe(plain).pipe(secure);
    const end = () => {
      secure.destroy();
      plain.destroy();
    };
    secure.on("error", end).on("close", end);
    plain.on("error", end).on("close", end);
  });
  // A client that gives up mid-handshake is not this server's failure.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
