/**
 * One thing a user enrolled for a method, as the account page lists it: a phone of the trusted app, a
 * security key, a confirmed number. Sensitive values arrive masked: the page shows them as given.
 */
export interface EnrolledItem {
  /** Text shown as is (a device's name, a masked address) ... */
  text?: string;
  /** ... or a UI string key of the method (`method.<id>.…`) with its placeholders. */
  textKey?: string;
  params?: Record<string, string>;
  /** Epoch ms. */
  addedAt?: number;
  /** Epoch ms, when the method records it per item. */
  lastUsedAt?: number;
}

/**
 * Where a method without an enrollment flow of its own is set up: the user directory (a password), an
 * administrator (a face reference), the trusted app itself (its FIDO2 credential, registered from the
 * phone), or another method's enrollment, whose record it shares (the trusted app's dynamic code uses
 * the phones the qrcode method enrolled).
 */
export type SetUpBy = "directory" | "administrator" | "app" | { method: string };

/** How the account page shows a factor method; every part optional. */
export interface MethodAccountView {
  setUpBy?: SetUpBy;
  /** A user may enroll several (phones, security keys): enrolling again adds one rather than replacing it. */
  several?: boolean;
  /** The user's enrollment record's data as the page lists it; an empty list means nothing is set up. */
  items?(data: unknown): EnrolledItem[];
}
