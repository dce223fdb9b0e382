import type { TrustedAppServices } from "./trusted-app-services.ts";
import { DeviceRegistry } from "./device-registry.ts";
import { DeviceEnrollments } from "./device-enrollments.ts";
import { LoginChallenges } from "./login-challenges.ts";
import { verifyDeviceJws, type DeviceJwsType, type VerifiedDeviceJws } from "./device-jws.ts";
import { checkDynamicCode } from "./dynamic-code.ts";

/**
 * The provider's side of the trusted app (DESIGN "The trusted app"), one per provider: the device
 * registry, enrollment tokens, login QR challenges, device-signed JWS verification and dynamic codes.
 * The device API (/app) and the qrcode and appotp plugins share it.
 */
export interface TrustedApp {
  devices: DeviceRegistry;
  enrollments: DeviceEnrollments;
  challenges: LoginChallenges;
  /** Verifies a device-signed JWS made for `typ` (throws DeviceJwsError). */
  verify(jws: unknown, typ: DeviceJwsType): Promise<VerifiedDeviceJws>;
  /** Checks a dynamic code of one of the user's devices, each time step once. */
  checkCode(sub: string, code: string): Promise<boolean>;
}

const instances = new WeakMap<TrustedAppServices, TrustedApp>();

export function trustedApp(provider: TrustedAppServices): TrustedApp {
  let app = instances.get(provider);
  if (!app) {
    const records = provider.store.namespace<never>("appChallenges");
    const devices = new DeviceRegistry(provider);
    app = {
      devices,
      enrollments: new DeviceEnrollments(provider, provider.store.namespace("appEnrollTokens"), provider.store.namespace("appChallenges")),
      challenges: new LoginChallenges(provider, records),
      verify: (jws, typ) => verifyDeviceJws(provider, devices, records, jws, typ),
      checkCode: (sub, code) => checkDynamicCode(provider, devices, records, sub, code),
    };
    instances.set(provider, app);
  }
  return app;
}
