import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../time/clock.ts";
import type { Store, RecordStore } from "../stores/store.ts";
import type { AccessTokenDenylist } from "../tokens/access-token-denylist.ts";
import { randomToken } from "../crypto/random-token.ts";
import type { AuditTrail } from "../audit/audit-trail.ts";
import type { UserLedger } from "../user-ledger/user-ledger.ts";
import type { RequestedClaimNames } from "./requested-claim-names.ts";

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
  /** The claims the authorize request's `claims` parameter added: refreshed tokens keep them. */
  requestedClaims?: RequestedClaimNames;
  /** A public client's refresh token is bound to its DPoP key (RFC 9449 §5): each refresh needs a proof by it; its successors keep it. */
  jkt?: string;
}

/**
 * The family's shared record, written only for an access token that outlives the family's expiry (issued
 * in its last access-token lifetime), so that revoking the family lasts until that token expires too.
 * `accessTokens`: what records written before access tokens named their family listed (read, never written).
 */
interface FamilyRecord {
  accessTokensUntil?: number;
  accessTokens?: IssuedAccessToken[];
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
 * access token it issued: those name the family in their jti (plannedAccessToken), so the family's one
 * revoked flag (AccessTokenDenylist.revokeFamily) covers them all. Every record here is of constant
 * size: a rotation costs the same after a million refreshes as after one.
 *
 * Keys in the refreshTokens namespace: `<hash>` a live token, `rotated:<hash>` a used one,
 * `family:<id>` the family's record (base64url hashes contain no ':'). Each family is filed once, when
 * it is issued, in its user's ledger (src/user-ledger/), so that an operator can revoke it.
 */
export class RefreshTokens {
  private readonly clock: Clock;
  private readonly accessTokens: AccessTokenDenylist;
  private readonly ledger: Pick<UserLedger, "record">;
  /** Told of reuse detected and of tokens revoked by their client. */
  private readonly audit?: AuditTrail;
  private readonly tokens: RecordStore<RefreshGrant>;
  private readonly families: RecordStore<FamilyRecord>;
  private readonly rotated: RecordStore<RotatedMarker>;

  constructor(store: Store, clock: Clock, accessTokens: AccessTokenDenylist, ledger: Pick<UserLedger, "record">, audit?: AuditTrail) {
    this.clock = clock;
    this.accessTokens = accessTokens;
    this.ledger = ledger;
    this.audit = audit;
    this.tokens = store.namespace("refreshTokens");
    this.families = store.namespace("refreshTokens");
    this.rotated = store.namespace("refreshTokens");
  }

  /**
   * The first token of a family, issued alongside `accessToken` (planned with the family's id). The
   * family is filed in its user's ledger before its first token exists: a family a client holds is
   * always one an operator can find.
   */
  async issue(grant: RefreshGrant, accessToken: IssuedAccessToken): Promise<string> {
    const { familyId, clientId, expiresAt: until, sid } = grant;
    await this.ledger.record(grant.sub, {
      kind: "refresh_family",
      familyId,
      clientId,
      issuedAt: this.clock(),
      until,
      ...(sid !== undefined && { sid }),
    });
    return this.store(grant, accessToken);
  }

  /** The grant behind a live token of a live family, or undefined. A pure read: it consumes nothing. */
  async find(token: string): Promise<RefreshGrant | undefined> {
    const grant = await this.tokens.get(storeKeyHash(token));
    if (!grant || (await this.accessTokens.isFamilyRevoked(grant.familyId))) return undefined;
    return grant;
  }

  /**
   * Replaces `token` by a successor that issues `accessToken` (planned with the family's id) alongside.
   * The token is taken atomically, so of any number of concurrent rotations exactly one gets a Rotation;
   * the others are reuse, which revokes the family (and so also what that one rotation issues). Undefined
   * when the token could not be taken. Callers check the grant with `find` first and may pass it (a
   * family's grant never changes, so a read that raced a rotation still holds); a rotation consumes the
   * token whatever follows.
   *
   * The successor is written before the token is taken: a store that fails between the two leaves the
   * presented token live (the client retries with it), instead of taking it with no successor written,
   * which would lose the client's grant; so does a take that fails after it ran (the store puts the
   * token back, KeyvRecordStore). A rotation that loses the race deletes its unused successor.
   */
  async rotate(token: string, accessToken: IssuedAccessToken, known?: RefreshGrant): Promise<Rotation | undefined> {
    const found = known ?? (await this.tokens.get(storeKeyHash(token)));
    if (found === undefined) {
      await this.detectReuse(token);
      return undefined;
    }
    // Records written before access tokens named their family carried a list of them: not passed on.
    const { accessTokens: _listed, ...grant } = found as RefreshGrant & { accessTokens?: unknown };
    const successor = await this.store(grant, accessToken);
    const current = await this.tokens.take(storeKeyHash(token));
    if (current === undefined) {
      await this.tokens.delete(storeKeyHash(successor));
      await this.detectReuse(token);
      return undefined;
    }
    const uncontested = await this.rotated.add(
      rotatedKey(token),
      { familyId: current.familyId, expiresAt: current.expiresAt },
      this.ttl(current),
    );
    if (!uncontested) {
      this.audit?.record({ type: "refresh_token.reuse_detected", family: grant.familyId, client_id: grant.clientId, sub: grant.sub });
      await this.revokeFamily(grant);
    }
    return { token: successor, grant };
  }

  /**
   * A refresh without rotation (a FAPI 2.0 client's, FAPI 2.0 §5.3.2.1 clause 10): `token` stays the
   * family's one token and keeps working until it expires or is revoked; only `accessToken` (planned with
   * the family's id) is new. Nothing is consumed, so a client that never received the answer retries with
   * the same token. An access token that outlives the family is recorded as at issue, so revoking the
   * family still covers it.
   */
  async keep(token: string, accessToken: IssuedAccessToken, grant: RefreshGrant): Promise<Rotation> {
    await this.recordOutliving(grant, accessToken);
    return { token, grant };
  }

  /**
   * A token that is not live was presented: when it was rotated before, that is reuse (RFC 9700
   * §4.14.2): the family is revoked. True when it was.
   */
  async detectReuse(token: string): Promise<boolean> {
    if (await this.rotated.add(rotatedKey(token), { reused: true }, IN_FLIGHT_MS)) return false;
    const marker = await this.rotated.get(rotatedKey(token));
    if (marker === undefined || "reused" in marker) return false;
    this.audit?.record({ type: "refresh_token.reuse_detected", family: marker.familyId });
    await this.revokeFamily(marker);
    return true;
  }

  /** Revokes the token's whole family when the token belongs to `clientId`; false otherwise. */
  async revoke(token: string, clientId: string): Promise<boolean> {
    const grant = await this.tokens.get(storeKeyHash(token));
    if (!grant || grant.clientId !== clientId) return false;
    await this.revokeFamily(grant);
    await this.tokens.delete(storeKeyHash(token));
    this.audit?.record({ type: "token.revoked", token_type: "refresh_token", client_id: clientId, family: grant.familyId, sub: grant.sub });
    return true;
  }

  /** Revokes every token of the family, and every access token it issued, until the last of them expires. */
  async revokeFamily(family: Pick<RefreshGrant, "familyId" | "expiresAt">): Promise<void> {
    await this.accessTokens.revokeFamily(family.familyId, family.expiresAt);
    // Read after the flag is set: a rotation writes the family record before it reads the flag, so
    // either it sees the flag (and extends it) or this read sees its access token.
    const shared = await this.families.get(familyKey(family.familyId));
    if (shared?.accessTokensUntil !== undefined && shared.accessTokensUntil * 1000 > family.expiresAt) {
      await this.accessTokens.revokeFamily(family.familyId, shared.accessTokensUntil * 1000);
    }
    for (const { jti, exp } of shared?.accessTokens ?? []) await this.accessTokens.revoke(jti, exp);
  }

  /**
   * Writes the token. An access token that outlives the family's expiry (and so its revoked flag) is
   * written into the family record first, and the flag read after: a revocation we did not see has seen it.
   */
  private async store(grant: RefreshGrant, accessToken: IssuedAccessToken): Promise<string> {
    const token = randomToken(32);
    await this.recordOutliving(grant, accessToken, () => this.tokens.set(storeKeyHash(token), grant, this.ttl(grant)));
    return token;
  }

  /** The family record for an access token that outlives the family, written before `write` and re-checked against a revocation after it. */
  private async recordOutliving(grant: RefreshGrant, accessToken: IssuedAccessToken, write?: () => Promise<void>): Promise<void> {
    const outlives = accessToken.exp * 1000 > grant.expiresAt;
    if (outlives)
      await this.families.set(familyKey(grant.familyId), { accessTokensUntil: accessToken.exp }, accessToken.exp * 1000 - this.clock());
    await write?.();
    if (outlives && (await this.accessTokens.isFamilyRevoked(grant.familyId))) await this.revokeFamily(grant);
  }

  private ttl(family: Pick<RefreshGrant, "expiresAt">): number {
    return Math.max(1, family.expiresAt - this.clock());
  }
}

const rotatedKey = (token: string) => `rotated:${storeKeyHash(token)}`;
const familyKey = (familyId: string) => `family:${familyId}`;
