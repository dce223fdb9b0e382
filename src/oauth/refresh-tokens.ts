import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";
import type { AccessTokenDenylist } from "../tokens/access-token-denylist.ts";
import { randomToken } from "../crypto/random-token.ts";

/** An access token named by its jti and exp (epoch seconds): enough to revoke it. */
export interface IssuedAccessToken {
  jti: string;
  exp: number;
}

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
  /** Extra ID-token claims of the authentication (chnl, gps, ...), repeated in refreshed ID tokens. */
  idTokenClaims?: Record<string, unknown>;
  /** Access tokens issued alongside this family (jti, exp in epoch seconds): revoked with it (RFC 7009 §2.1). */
  accessTokens: IssuedAccessToken[];
}

/** The family's shared record: every live access token it issued, whichever token issued it. */
interface FamilyRecord {
  accessTokens: IssuedAccessToken[];
}

/**
 * Left under a rotated token's hash, so a later presentation of it is known as reuse. A presentation
 * that finds neither the token nor a marker writes `{ reused: true }`: the rotation in flight then
 * learns, when it writes its marker, that its token was presented twice.
 */
type RotatedMarker = { familyId: string; expiresAt: number } | { reused: true };

/** The outcome of a rotation: the successor token and the grant stored for it. */
export interface Rotation {
  token: string;
  grant: RefreshGrant;
}

// How long a "reused" marker waits for a rotation in flight. A rotation writes its marker right after
// taking the token, so seconds would do; minutes allow for a slow store.
const IN_FLIGHT_MS = 300_000;


/**
 * Opaque refresh tokens, rotated on every use (RFC 9700 §4.14.2). A family is every token descended
 * from one grant; revoking any member, or presenting a rotated one again, revokes the family and every
 * access token it issued.
 *
 * Keys in the refreshTokens namespace: `<hash>` a live token, `rotated:<hash>` a used one,
 * `family:<id>` the family's access tokens (base64url hashes contain no ':').
 */
export class RefreshTokens {
  private readonly tokens: RecordStore<RefreshGrant>;
  private readonly families: RecordStore<FamilyRecord>;
  private readonly rotated: RecordStore<RotatedMarker>;
  private readonly revoked: RecordStore<true>;

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly accessTokens: AccessTokenDenylist,
  ) {
    this.tokens = store.namespace("refreshTokens");
    this.families = store.namespace("refreshTokens");
    this.rotated = store.namespace("refreshTokens");
    this.revoked = store.namespace("revokedTokens");
  }

  async issue(grant: Omit<RefreshGrant, "familyId"> & { familyId?: string }): Promise<string> {
    return this.store({ ...grant, familyId: grant.familyId ?? randomToken(16) });
  }

  /** The grant behind a live token of a live family, or undefined. A pure read: it consumes nothing. */
  async find(token: string): Promise<RefreshGrant | undefined> {
    const grant = await this.tokens.get(storeKeyHash(token));
    if (!grant || (await this.isFamilyRevoked(grant.familyId))) return undefined;
    return grant;
  }

  /**
   * Replaces `token` by a successor that issues `accessToken` alongside. The token is taken atomically,
   * so of any number of concurrent rotations exactly one gets a Rotation; the others are reuse, which
   * revokes the family (and so also what that one rotation issues). Undefined when the token could not
   * be taken. Callers check the grant with `find` first: a rotation consumes the token whatever follows.
   */
  async rotate(token: string, accessToken: IssuedAccessToken): Promise<Rotation | undefined> {
    const current = await this.tokens.take(storeKeyHash(token));
    if (current === undefined) {
      await this.detectReuse(token);
      return undefined;
    }
    const uncontested = await this.rotated.add(rotatedKey(token), { familyId: current.familyId, expiresAt: current.expiresAt }, this.ttl(current));
    const now = this.clock();
    const grant: RefreshGrant = { ...current, accessTokens: [...current.accessTokens.filter((a) => a.exp * 1000 > now), accessToken] };
    const successor = await this.store(grant);
    // After the family record is written (see revokeFamily): a revocation we did not see has seen our access token.
    if (!uncontested || (await this.isFamilyRevoked(grant.familyId))) await this.revokeFamily(grant);
    return { token: successor, grant };
  }

  /**
   * A token that is not live was presented: when it was rotated before, that is reuse (RFC 9700
   * §4.14.2): the family is revoked. True when it was.
   */
  async detectReuse(token: string): Promise<boolean> {
    if (await this.rotated.add(rotatedKey(token), { reused: true }, IN_FLIGHT_MS)) return false;
    const marker = await this.rotated.get(rotatedKey(token));
    if (marker === undefined || "reused" in marker) return false;
    await this.revokeFamily(marker);
    return true;
  }

  /** Revokes the token's whole family when the token belongs to `clientId`; false otherwise. */
  async revoke(token: string, clientId: string): Promise<boolean> {
    const grant = await this.tokens.get(storeKeyHash(token));
    if (!grant || grant.clientId !== clientId) return false;
    await this.revokeFamily(grant);
    await this.tokens.delete(storeKeyHash(token));
    return true;
  }

  /** Revokes every token of the family, and the access tokens issued with it that have not yet expired. */
  async revokeFamily(family: Pick<RefreshGrant, "familyId" | "expiresAt"> & { accessTokens?: IssuedAccessToken[] }): Promise<void> {
    await this.revoked.set(familyKey(family.familyId), true, this.ttl(family));
    // Read after the flag is set: a rotation writes the family record before it reads the flag, so
    // either it sees the flag or this read sees its access token.
    const shared = await this.families.get(familyKey(family.familyId));
    const all = new Map([...(family.accessTokens ?? []), ...(shared?.accessTokens ?? [])].map((a) => [a.jti, a.exp]));
    for (const [jti, exp] of all) await this.accessTokens.revoke(jti, exp);
  }

  private async isFamilyRevoked(familyId: string): Promise<boolean> {
    return (await this.revoked.get(familyKey(familyId))) === true;
  }

  /** Writes the family's access tokens, then the token: the family record is never behind a live token. */
  private async store(grant: RefreshGrant): Promise<string> {
    const token = randomToken(32);
    await this.families.set(familyKey(grant.familyId), { accessTokens: grant.accessTokens }, this.ttl(grant));
    await this.tokens.set(storeKeyHash(token), grant, this.ttl(grant));
    return token;
  }

  private ttl(family: Pick<RefreshGrant, "expiresAt">): number {
    return Math.max(1, family.expiresAt - this.clock());
  }
}

const rotatedKey = (token: string) => `rotated:${storeKeyHash(token)}`;
const familyKey = (familyId: string) => `family:${familyId}`;
