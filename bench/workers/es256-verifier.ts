import { createHash, createPublicKey, randomBytes, sign, verify } from "node:crypto";
import { benchKey } from "../client-proofs.ts";
import { measureLoop } from "./tight-loop.ts";

/**
 * The ES256 floor: P-256 signature verifications per second on the core this process is pinned to, of a
 * JWS signing input the size of a DPoP proof for the token endpoint (node:crypto verify with the parsed
 * KeyObject itself and a DER signature, its cheapest form: an options object for JWS's r‖s encoding costs
 * node a key-type check per call, src/crypto/jws-signature.ts): one verification, the cost the DPoP
 * target compares the provider's extra CPU per request with (targets.ts, DPOP_EXTRA_CPU_TARGET). argv: warm-up seconds, measured seconds, the core it is pinned
 * to. Prints one LoopSample (tight-loop.ts) as JSON; an operation is one verification.
 */
const warmupSeconds = Number(process.argv[2] ?? 1);
const seconds = Number(process.argv[3] ?? 3);
const cpu = Number(process.argv[4] ?? 0);

const { privateKey, publicJwk } = benchKey("es256-floor");
const { kid: _kid, ...jwk } = publicJwk;
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const signingInput = Buffer.from(
  `${encode({ typ: "dpop+jwt", alg: "ES256", jwk })}.${encode({
    jti: randomBytes(16).toString("base64url"),
    htm: "POST",
    htu: "http://localhost:3000/connect/token",
    iat: 1_795_248_755,
    ath: createHash("sha256").update("access-token").digest("base64url"),
  })}`,
);
const signature = sign("sha256", signingInput, privateKey);
const publicKey = createPublicKey(privateKey);

measureLoop(
  () => {
    if (!verify("sha256", signingInput, publicKey, signature)) throw new Error("the ES256 floor's signature does not verify");
  },
  warmupSeconds,
  seconds,
  cpu,
);
