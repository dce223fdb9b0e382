import { randomBytes } from "node:crypto";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import type { FidoSettings } from "./fido-settings.ts";
import { storeKeyHash, type PluginContext } from "../../../src/plugin-contract/index.ts";

/** A pending WebAuthn ceremony, kept server-side until its answer is checked (once). */
export type Ceremony =
  | { ceremony: "registration"; sub: string; challenge: string; userHandle: string; options: PublicKeyCredentialCreationOptionsJSON }
  | { ceremony: "authentication"; sub: string; challenge: string; options: PublicKeyCredentialRequestOptionsJSON };

/**
 * The challenges of pending ceremonies, by an opaque handle. The machine's context holds only the
 * handle; the page's script presents it to fetch the options (`get`, as often as the user retries),
 * and the check of the answer `take`s the ceremony: a challenge is answered at most once, whatever
 * the answer, and a replayed assertion finds nothing to match.
 */
export class FidoChallenges {
  private readonly context: PluginContext<FidoSettings>;

  constructor(context: PluginContext<FidoSettings>) {
    this.context = context;
  }

  /** Stores the ceremony for `ttlMs`; its handle. */
  async create(ceremony: Ceremony, ttlMs: number): Promise<string> {
    const handle = randomBytes(24).toString("base64url");
    await this.records().set(this.key(handle), ceremony, ttlMs);
    return handle;
  }

  /** The ceremony, left in place (the options route). */
  find(handle: string): Promise<Ceremony | undefined> {
    return this.records().get(this.key(handle));
  }

  /** The ceremony, removed atomically: among concurrent callers one gets it. */
  take(handle: string): Promise<Ceremony | undefined> {
    return this.records().take(this.key(handle));
  }

  private records() {
    return this.context.services.store.namespace<Ceremony>("methodChallenges");
  }

  // The handle comes back from a request: only its hash becomes a store key.
  private key(handle: string): string {
    return `${this.context.methodId}-challenge:${storeKeyHash(handle)}`;
  }
}
