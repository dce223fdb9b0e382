import { randomFillSync } from "node:crypto";

/**
 * Random identifiers and secrets (codes, session cookies, handles, ids) as base64url of `bytes` bytes
 * from the CSPRNG. `randomBytes(n)` asks OpenSSL once per call, which measured ~9 µs in the provider under
 * load (docs/performance.md); this draws them from a 4 KiB buffer filled by one call, as node's own
 * `randomUUID` does. Every byte is handed out once. The buffer is allocated outside node's shared Buffer
 * pool, so no other allocation can ever expose bytes not yet handed out.
 */
const POOL_BYTES = 4096;

let pool = Buffer.allocUnsafeSlow(0);
let offset = 0;

export function randomToken(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes > 256) throw new RangeError("a random token has 16 to 256 bytes");
  if (offset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    offset = 0;
  }
  const token = pool.toString("base64url", offset, offset + bytes);
  offset += bytes;
  return token;
}
