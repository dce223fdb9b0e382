import type { JWK } from "jose";
import { generateSecret } from "otplib";
import type { TrustedAppServices } from "./trusted-app-services.ts";
import type { MethodEnrollments } from "../enrollments/enrollments.ts";
import { randomToken } from "../crypto/random-token.ts";

/**
 * The enrollment record that holds a user's trusted-app devices: the qrcode method's, because its
 * enrollment machine is what enrolls a device and the account page lists and removes it under that
 * id. Removing it (account page, `portcullis methods reset`) revokes every device of the user at once,
 * for scans, approvals, dynamic codes (appotp) and silent login alike.
 */
export const DEVICE_ENROLLMENT_METHOD = "qrcode";

/** At most this many active devices per user: each scan and code check reads them all. */
export const MAX_DEVICES = 10;
/** Revoked devices kept for the record (name, dates), oldest dropped first. */
const MAX_REVOKED = 10;

/** One enrolled phone: its P-256 public key and its sealed dynamic-code seed. */
export interface Device {
  id: string;
  /** The name the app gave (shown on the login page after a scan). */
  name: string;
  /** The device's public key (EC P-256, no private part). */
  publicJwk: JWK;
  /** The base32 TOTP seed of the dynamic code, sealed by the provider's secret box; removed on revocation. */
  seedSealed?: string;
  createdAt: number;
  revokedAt?: number;
}

/** The data of the user's DEVICE_ENROLLMENT_METHOD enrollment record. */
export interface DeviceEnrollment {
  devices: Device[];
}

/** The user already has MAX_DEVICES active devices. */
export class TooManyDevicesError extends Error {
  static readonly code: string = "ERR_TOO_MANY_DEVICES";
  readonly code: string = "ERR_TOO_MANY_DEVICES";
}

/**
 * The trusted-app devices of every user, kept in the durable enrollment records: add one (enrollment),
 * find an active one (every device-signed request), revoke one, and open a device's seed.
 */
export class DeviceRegistry {
  private readonly provider: TrustedAppServices;
  private readonly records: MethodEnrollments<DeviceEnrollment>;

  constructor(provider: TrustedAppServices) {
    this.provider = provider;
    this.records = provider.enrollments.forMethod<DeviceEnrollment>(DEVICE_ENROLLMENT_METHOD);
  }

  /** Records a new device for the user; returns it with its dynamic-code seed (shown to the app once). */
  async add(sub: string, name: string, publicJwk: JWK): Promise<{ device: Device; seed: string }> {
    const id = randomToken(16);
    const seed = generateSecret({ length: 20 });
    const device: Device = {
      id,
      name,
      publicJwk,
      seedSealed: this.provider.secretBox.seal(seed, seedContext(sub, id)),
      createdAt: this.provider.clock(),
    };
    // Under the record's lock: two phones enrolled at the same moment are both kept.
    await this.records.update(sub, (current) => {
      const devices = current?.devices ?? [];
      if (devices.filter((d) => d.revokedAt === undefined).length >= MAX_DEVICES)
        throw new TooManyDevicesError(`at most ${MAX_DEVICES} devices per user`);
      return { devices: [...devices, device] };
    });
    return { device, seed };
  }

  /** The user's active (not revoked) device with this id. */
  async find(sub: string, deviceId: string): Promise<Device | undefined> {
    return (await this.active(sub)).find((d) => d.id === deviceId);
  }

  /** The user's active devices (none for an unknown user or a decoy sub). */
  async active(sub: string): Promise<Device[]> {
    return (await this.all(sub)).filter((d) => d.revokedAt === undefined);
  }

  /** Revokes one device: it can no longer sign or produce codes. True when it was active. */
  async revoke(sub: string, deviceId: string): Promise<boolean> {
    let found = false;
    await this.records.update(sub, (current) => {
      const devices = current?.devices ?? [];
      const target = devices.find((d) => d.id === deviceId && d.revokedAt === undefined);
      if (!target) return current;
      found = true;
      const { seedSealed: _dropped, ...rest } = target;
      const updated = devices.map((d) => (d === target ? { ...rest, revokedAt: this.provider.clock() } : d));
      // Without an active device the user has no trusted app: the enrollment goes (the account page then offers "Set up").
      if (!updated.some((d) => d.revokedAt === undefined)) return undefined;
      const kept = updated.filter((d) => d.revokedAt !== undefined).slice(-MAX_REVOKED);
      return { devices: updated.filter((d) => d.revokedAt === undefined || kept.includes(d)) };
    });
    return found;
  }

  /** The device's dynamic-code seed; throws when the sealed value was not sealed for this device. */
  seedOf(sub: string, device: Device): string | undefined {
    return device.seedSealed === undefined ? undefined : this.provider.secretBox.open(device.seedSealed, seedContext(sub, device.id));
  }

  private async all(sub: string): Promise<Device[]> {
    return (await this.records.get(sub))?.data.devices ?? [];
  }
}

// The seed is bound to its user and device: a sealed seed copied to another record does not open.
const seedContext = (sub: string, deviceId: string) => `trusted-app-seed:${sub}:${deviceId}`;
