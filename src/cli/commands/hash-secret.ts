import { randomBytes } from "node:crypto";
import { hashSecret } from "../../crypto/secret-hash.ts";
import type { Command } from "../support/command.ts";

/** 32 random bytes: 256 bits, far beyond guessing, which is why a single SHA-256 is enough to store it. */
const GENERATED_SECRET_BYTES = 32;

/** `portcullis hash-secret [SECRET]`: the `sha256:<hex>` for client_secret_hash / api_secret_hash. */
export const hashSecretCommand: Command = {
  name: "hash-secret",
  summary: "print sha256:<hex> of SECRET for clients.yaml or scopes.yaml; without SECRET, generate one",
  positionals: { usage: "[SECRET]", max: 1 },
  options: {},
  async run({ positionals, stdout, stderr }) {
    const [given] = positionals;
    if (given !== undefined) {
      stderr.write("warning: a secret on the command line lands in your shell history; run without it to generate one\n");
      stdout.write(`${hashSecret(given)}\n`);
      return 0;
    }
    const secret = randomBytes(GENERATED_SECRET_BYTES).toString("base64url");
    stdout.write(`secret: ${secret}\nhash:   ${hashSecret(secret)}\n`);
    stderr.write("Give the secret to the client; put only the hash in the config.\n");
    return 0;
  },
};
