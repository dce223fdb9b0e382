import { generateKeyPairSync, sign } from "node:crypto";
import { measureLoop } from "./tight-loop.ts";

/**
 * The RS256 floor: RSA-2048 signatures per second on the core this process is pinned to, signing a
 * JWS signing input the size of a client_credentials access token, exactly as the provider does
 * (node:crypto sign with a parsed KeyObject). argv: warm-up seconds, measured seconds, the core it is
 * pinned to. Prints one LoopSample (tight-loop.ts) as JSON; an operation is one signature.
 */
const warmupSeconds = Number(process.argv[2] ?? 1);
const seconds = Number(process.argv[3] ?? 3);
const cpu = Number(process.argv[4] ?? 0);

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const header = Buffer.from(JSON.stringify({ alg: "RS256", kid: "bench-key-000001", typ: "at+jwt" })).toString("base64url");
const payload = Buffer.from(
  JSON.stringify({
    iss: "http://localhost:3000",
    sub: "demo-service",
    aud: "acme-api",
    exp: 1_795_252_355,
    iat: 1_795_248_755,
    jti: "1c0e2cde-902c-456a-a855-11542f03ce58",
    client_id: "demo-service",
    scope: "acme acme.api.msg",
  }),
).toString("base64url");
const signingInput = Buffer.from(`${header}.${payload}`);

measureLoop(() => sign("sha256", signingInput, privateKey), warmupSeconds, seconds, cpu);
