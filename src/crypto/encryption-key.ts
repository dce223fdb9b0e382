import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The key material for the SecretBox: the configured `secrets.encryption_key`, or — only for the
 * embedded store, whose records live in data_dir anyway — a random key generated once into
 * `<data_dir>/encryption.key` (mode 0600), so `npm start` needs no setup.
 */
export function encryptionKeyMaterial(configured: string | undefined, dataDir: string): string {
  if (configured !== undefined) return configured;
  const path = join(dataDir, "encryption.key");
  try {
    return readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const generated = randomBytes(48).toString("base64url");
  // "wx": if another start raced us to it, keep theirs.
  try {
    writeFileSync(path, generated + "\n", { mode: 0o600, flag: "wx" });
    return generated;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return readFileSync(path, "utf8").trim();
  }
}
