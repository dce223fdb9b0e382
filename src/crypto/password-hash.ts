import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/**
 * User passwords are low-entropy, so they get a memory-hard hash: scrypt, stored as a PHC string
 * `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt b64>$<hash b64>`.
 */
const DEFAULT = { ln: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** Shortest stored key accepted when verifying (128 bits). */
const MIN_KEY_LENGTH = 16;
/** Upper bounds on the parameters a stored hash may ask for (ln=20, r=16 is 4 GiB of scrypt memory already). */
const MAX_LN = 20;
const MAX_R = 16;
const MAX_P = 16;
const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, ln: number, r: number, p: number, length: number): Promise<Buffer> {
  const N = 2 ** ln;
  // maxmem must cover 128 * N * r bytes, or node refuses the parameters.
  const maxmem = 256 * N * r;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, length, { N, r, p, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const b64 = (buf: Buffer) => buf.toString("base64").replace(/=+$/, "");

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULT.ln, DEFAULT.r, DEFAULT.p, KEY_LENGTH);
  return `$scrypt$ln=${DEFAULT.ln},r=${DEFAULT.r},p=${DEFAULT.p}$${b64(salt)}$${b64(key)}`;
}

export function isPasswordHash(value: string): boolean {
  return PHC.test(value);
}

/** Constant-time verification; false (never a throw) for a malformed hash. */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  if (!m) return false;
  const [, ln, r, p, salt, hash] = m as unknown as [string, string, string, string, string, string];
  // Bound the cost a hash may ask for: a typo like ln=40 must not make one login allocate terabytes.
  if (Number(ln) > MAX_LN || Number(r) > MAX_R || Number(p) > MAX_P) return false;
  const expected = Buffer.from(hash, "base64");
  // A truncated hash ("$A" decodes to 0 bytes) would otherwise match every password.
  if (expected.length < MIN_KEY_LENGTH) return false;
  let actual: Buffer;
  try {
    actual = await derive(password, Buffer.from(salt, "base64"), Number(ln), Number(r), Number(p), expected.length);
  } catch {
    return false; // parameters scrypt refuses (r=0, N out of range, over the memory limit)
  }
  return timingSafeEqual(expected, actual);
}
