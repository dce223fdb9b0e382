import { scryptSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { measureLoop } from "./tight-loop.ts";

/**
 * The scrypt floor: password verifications per second on the core this process is pinned to, with the
 * parameters, salt and key length of the first demo user's stored hash (config/users.yaml), as the
 * provider verifies a password at login (node:crypto scrypt). One login flow costs one of these.
 * argv: warm-up seconds, measured seconds, the core it is pinned to. Prints one LoopSample as JSON.
 */
const warmupSeconds = Number(process.argv[2] ?? 1);
const seconds = Number(process.argv[3] ?? 3);
const cpu = Number(process.argv[4] ?? 0);

const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;
const users = parse(readFileSync(new URL("../../config/users.yaml", import.meta.url), "utf8")) as {
  users: Array<{ password_hash: string }>;
};
const match = PHC.exec(users.users[0]?.password_hash ?? "");
if (!match) throw new Error("config/users.yaml: the first user has no scrypt PHC password_hash");
const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
const N = 2 ** Number(ln);
const options = { N, r: Number(r), p: Number(p), maxmem: 256 * N * Number(r) };
const saltBytes = Buffer.from(salt, "base64");
const keyLength = Buffer.from(hash, "base64").length;

measureLoop(() => scryptSync("alice-password", saltBytes, keyLength, options), warmupSeconds, seconds, cpu);
