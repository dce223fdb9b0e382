import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWTPayload } from "jose";
import type { TrustedAppServices } from "./trusted-app-services.ts";
import type { RecordStore } from "../stores/store.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import { describeJoseError } from "../tokens/jose-errors.ts";
import type { Device, DeviceRegistry } from "./device-registry.ts";

/**
 * What each device-signed request is for, as its JWS `typ` header: a signature made for one purpose
 * (a scan) is refused for any other (an approval, a silent login).
 */
export const DEVICE_JWS_TYPES = {
  scan: "acmeauth-scan+jwt",
  approve: "acmeauth-approve+jwt",
  deny: "acmeauth-deny+jwt",
  unenroll: "acmeauth-unenroll+jwt",
  silentLogin: "acmeauth-sso+jwt",
  /** Registering a FIDO2 credential of the app (method bfido), and answering a bfido QR code with it. */
  bfidoRegister: "acmeauth-bfido-register+jwt",
  bfido: "acmeauth-bfido+jwt",
} as const;

export type DeviceJwsType = (typeof DEVICE_JWS_TYPES)[keyof typeof DEVICE_JWS_TYPES];

/** How far `iat` may be from the provider's clock, either way (phone clocks drift). */
export const DEVICE_JWS_SKEW_SECONDS = 60;
/** How far past its own `exp` a device JWS is still accepted. */
const EXP_TOLERANCE_SECONDS = 5;
/** Longer than any device JWS can be: a bigger one is refused before it is parsed. */
export const MAX_DEVICE_JWS_LENGTH = 8192;

/** A device JWS that was refused; `reason` is safe to tell the app. */
export class DeviceJwsError extends Error {
  static readonly code: string = "ERR_DEVICE_JWS";
  readonly code: string = "ERR_DEVICE_JWS";
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** A verified device JWS: who signed it, with which device, and its claims. */
export interface VerifiedDeviceJws {
  sub: string;
  device: Device;
  claims: JWTPayload & Record<string, unknown>;
}

/**
 * Verifies a JWS that a trusted-app device signed (ES256, header `kid` = device id, claim `sub` = its
 * user): the device must be an active device of an active user; the signature, `typ`, `aud` (our
 * issuer) must check out; `iat` must be within DEVICE_JWS_SKEW_SECONDS of now; and its `jti` is
 * claimed atomically in the shared store, so a replayed JWS is refused in every provider process.
 */
export async function verifyDeviceJws(
  provider: TrustedAppServices,
  devices: DeviceRegistry,
  usedIds: RecordStore<number>,
  jws: unknown,
  typ: DeviceJwsType,
): Promise<VerifiedDeviceJws> {
  if (typeof jws !== "string" || jws.length === 0 || jws.length > MAX_DEVICE_JWS_LENGTH)
    throw new DeviceJwsError("a device JWS is required");
  let kid: unknown;
  let unverifiedSub: unknown;
  try {
    const header = decodeProtectedHeader(jws);
    if (header.alg !== "ES256") throw new DeviceJwsError("the device JWS must be ES256");
    kid = header.kid;
    unverifiedSub = decodeJwt(jws).sub;
  } catch (err) {
    if (err instanceof DeviceJwsError) throw err;
    throw new DeviceJwsError("the device JWS is malformed");
  }
  // The unverified sub and kid only find the key; the signature below vouches for them.
  if (typeof kid !== "string" || typeof unverifiedSub !== "string") throw new DeviceJwsError("the device JWS needs a kid and a sub");
  const device = (await provider.users.isActive(unverifiedSub)) ? await devices.find(unverifiedSub, kid) : undefined;
  if (!device) throw new DeviceJwsError("the device is not enrolled");

  let claims: JWTPayload & Record<string, unknown>;
  const now = provider.clock();
  try {
    const key = await importJWK(device.publicJwk, "ES256");
    ({ payload: claims } = await jwtVerify(jws, key, {
      algorithms: ["ES256"],
      typ,
      audience: provider.issuer,
      subject: unverifiedSub,
      requiredClaims: ["iat", "jti", "sub", "aud"],
      currentDate: new Date(now),
      // exp (when present) is honoured nearly as written; the iat window below is the skew allowance.
      clockTolerance: EXP_TOLERANCE_SECONDS,
    }));
  } catch (err) {
    throw new DeviceJwsError(describeJoseError(err).replace("token", "device JWS"));
  }
  if (Math.abs(claims.iat! - now / 1000) > DEVICE_JWS_SKEW_SECONDS)
    throw new DeviceJwsError("the device JWS was not signed just now (iat)");
  if (typeof claims.jti !== "string" || claims.jti.length < 16 || claims.jti.length > 128)
    throw new DeviceJwsError("the device JWS needs a random jti");
  // Remembered for as long as the JWS could pass the iat check, then forgotten.
  const remember = (2 * DEVICE_JWS_SKEW_SECONDS + 5) * 1000;
  if (!(await usedIds.add(`jti:${device.id}:${storeKeyHash(claims.jti)}`, 1, remember)))
    throw new DeviceJwsError("the device JWS was already used");
  return { sub: unverifiedSub, device, claims };
}
