import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";
import type { AccessTokenDenylist } from "../tokens/access-token-denylist.ts";

/** What a refresh token stands for. Stored under the SHA-256 of the token, never the token itself. */
export interface RefreshGrant {
  clientId: string;
  sub: string;
  scopes: string[];
  familyId: string;
  /** Absolute expiry (ms); rotation keeps it. */
  expiresAt: number;
  authTime?: number;
  amr?: string[];
  acr?: string;
  sid?: string;
  /** Access tokens issued alongside this family (jti, exp in epoch seconds): revoked with it (RFC 7009 §2.1). */
  accessTokens: Array<{ jti: string; exp: number }>;
}

const hash = (token: string) => createHash("sha256").update(token).digest("base64url");

/**
 * Opaque refresh tokens. A family is every token descended from one grant; revoking any member
 * (or detecting reuse of a rotated one) revokes the family.
 */
export class RefreshTokens {
  private readonly tokens: RecordStore<RefreshGrant>;
  private readonly revoked: RecordStore<true>;

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly accessTokens: AccessTokenDenylist,
  ) {
    this.tokens = store.namespace("refreshTokens");
    this.revoked = store.namespace("revokedTokens");
  }

  async issue(grant: Omit<RefreshGrant, "familyId"> & { familyId?: string }): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    const record: RefreshGrant = { ...grant, familyId: grant.familyId ?? randomBytes(16).toString("base64url") };
    await this.tokens.set(hash(token), record, Math.max(1, record.expiresAt - this.clock()));
    return token;
  }

  /** The grant behind a live token of a live family, or undefined. */
  async find(token: string): Promise<RefreshGrant | undefined> {
    const grant = await this.tokens.get(hash(token));
    if (!grant || (await this.isFamilyRevoked(grant.familyId))) return undefined;
    return grant;
  }

  /** Revokes the token's whole family when the token belongs to `clientId`; false otherwise. */
  async revoke(token: string, clientId: string): Promise<boolean> {
    const grant = await this.tokens.get(hash(token));
    if (!grant || grant.clientId !== clientId) return false;
    await this.revokeFamily(grant);
    await this.tokens.delete(hash(token));
    return true;
  }

  /** Revokes every token of the family, and the access tokens issued with it that have not yet expired. */
  async revokeFamily(grant: RefreshGrant): Promise<void> {
    await this.revoked.set(`family:${grant.familyId}`, true, Math.max(1, grant.expiresAt - this.clock()));
    for (const { jti, exp } of grant.accessTokens) await this.accessTokens.revoke(jti, exp);
  }

  private async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.revoked.get(`family:${familyId}`)) === true;
  }
}
