/**
 * A WebAuthn authenticator in software, for tests that must forge what a browser would never send
 * (another origin, another RP id, an old challenge, a counter that went back). @simplewebauthn/server
 * ships none (DESIGN "Pitfalls"): this one is built on node:crypto and a few lines of CBOR. It makes
 * P-256 (ES256) credentials with `none` attestation, and answers with the JSON a browser's
 * PublicKeyCredential serialises to (binary fields base64url), which is what the FIDO2 pages post.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

export interface CreationOptionsJson {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
}

export interface RequestOptionsJson {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/** What a test may forge in one answer. */
export interface Forgery {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** The signature counter to report (default: the next one). */
  signCount?: number;
  /** The user-verified flag (default: the authenticator's). */
  userVerified?: boolean;
  /** Sign with this key instead of the credential's. */
  signingKey?: KeyObject;
  /** clientData type (default webauthn.create / webauthn.get). */
  type?: string;
}

export interface SoftwareCredential {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  rpId: string;
  userHandle: string;
  signCount: number;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftwareAuthenticator {
  readonly credentials: SoftwareCredential[] = [];

  constructor(
    private readonly origin: string,
    private readonly settings: { userVerified?: boolean; transports?: string[] } = {},
  ) {}

  /** navigator.credentials.create: a new credential for the options' RP and user. */
  register(options: CreationOptionsJson, forge: Forgery = {}) {
    const rpId = forge.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const credential: SoftwareCredential = { id: randomBytes(32).toString("base64url"), privateKey, publicKey, rpId, userHandle: options.user.id, signCount: 0 };
    this.credentials.push(credential);
    const clientDataJSON = this.clientData(forge.type ?? "webauthn.create", forge.challenge ?? options.challenge, forge.origin);
    const idBytes = Buffer.from(credential.id, "base64url");
    const attestedCredentialData = Buffer.concat([Buffer.alloc(16), u16(idBytes.length), idBytes, coseKey(publicKey)]);
    const authData = Buffer.concat([rpIdHash(rpId), Buffer.of(this.flags(forge) | FLAG_AT), u32(forge.signCount ?? 0), attestedCredentialData]);
    const attestationObject = cbor(new Map<unknown, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: this.settings.transports ?? ["usb"] },
    };
  }

  /** navigator.credentials.get: an assertion by the first of our credentials the options allow. */
  authenticate(options: RequestOptionsJson, forge: Forgery = {}, credential = this.allowed(options)) {
    const signCount = forge.signCount ?? ++credential.signCount;
    const clientDataJSON = this.clientData(forge.type ?? "webauthn.get", forge.challenge ?? options.challenge, forge.origin);
    const authData = Buffer.concat([rpIdHash(forge.rpId ?? credential.rpId), Buffer.of(this.flags(forge)), u32(signCount)]);
    const signed = Buffer.concat([authData, createHash("sha256").update(clientDataJSON).digest()]);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(sign("sha256", signed, forge.signingKey ?? credential.privateKey)),
        userHandle: credential.userHandle,
      },
    };
  }

  private allowed(options: RequestOptionsJson): SoftwareCredential {
    const ids = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const found = this.credentials.find((c) => ids.size === 0 || ids.has(c.id));
    if (!found) throw new Error("no credential of this authenticator is allowed");
    return found;
  }

  private flags(forge: Forgery): number {
    return FLAG_UP | ((forge.userVerified ?? this.settings.userVerified ?? true) ? FLAG_UV : 0);
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}

const b64u = (bytes: Buffer) => bytes.toString("base64url");
const rpIdHash = (rpId: string) => createHash("sha256").update(rpId).digest();
const u16 = (n: number) => Buffer.of(n >> 8, n & 0xff);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** The COSE_Key of a P-256 public key (RFC 9053): kty EC2, alg ES256, crv P-256, x, y. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  return cbor(new Map<unknown, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, "base64url")], [-3, Buffer.from(jwk.y!, "base64url")]]));
}

/** Just enough CBOR (RFC 8949) for attestation objects: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === "string") {
    const text = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`no CBOR for ${typeof value}`);
}

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.of((major << 5) | n);
  if (n < 0x100) return Buffer.of((major << 5) | 24, n);
  if (n < 0x10000) return Buffer.of((major << 5) | 25, n >> 8, n & 0xff);
  throw new Error("CBOR length too large for this encoder");
}
