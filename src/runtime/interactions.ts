import { constantTimeEqual } from "../crypto/constant-time-equal.ts";
import { storeKeyHash } from "../crypto/store-key-hash.ts";
import type { Clock } from "../time/clock.ts";
import type { RecordStore, Store } from "../stores/store.ts";
import type { Interaction, NewInteraction } from "./interaction.ts";
import { randomToken } from "../crypto/random-token.ts";

const random = () => randomToken(24);

/** Interactions in the store, with their browser binding and CSRF checks. */
export class Interactions {
  private readonly clock: Clock;
  private readonly lifetimeSeconds: number;
  private readonly records: RecordStore<Interaction>;
  /** `done:<id>` markers share the namespace (an id has no ':'). */
  private readonly done: RecordStore<true>;
  /** `link:<hash>` → id: a second handle on an interaction (an eID login's state), also in the namespace. */
  private readonly links: RecordStore<string>;

  constructor(store: Store, clock: Clock, lifetimeSeconds: number) {
    this.clock = clock;
    this.lifetimeSeconds = lifetimeSeconds;
    this.records = store.namespace("interactions");
    this.done = store.namespace("interactions");
    this.links = store.namespace("interactions");
  }

  /** A new interaction and the cookie value that binds it to this browser. */
  async create(fields: NewInteraction): Promise<{ interaction: Interaction; browserCookie: string }> {
    const browserCookie = random();
    const interaction: Interaction = {
      ...fields,
      id: random(),
      browserHash: storeKeyHash(browserCookie),
      csrf: random(),
      loginId: randomToken(16),
      expiresAt: this.clock() + this.lifetimeSeconds * 1000,
    };
    await this.save(interaction);
    return { interaction, browserCookie };
  }

  /** The interaction when it exists and belongs to the browser presenting `browserCookie`. */
  async find(id: string, browserCookie: string | undefined): Promise<Interaction | undefined> {
    if (!browserCookie || id.length > 64) return undefined;
    const interaction = await this.records.get(id);
    return interaction && constantTimeEqual(interaction.browserHash, storeKeyHash(browserCookie)) ? interaction : undefined;
  }

  /**
   * Makes `key` (a value another party sends back, such as the state of an eID login) a second handle
   * on the interaction, for its lifetime. Stored as a hash: a store dump yields no usable state.
   */
  async link(key: string, interaction: Interaction): Promise<void> {
    await this.links.set(`link:${storeKeyHash(key)}`, interaction.id, Math.max(1, interaction.expiresAt - this.clock()));
  }

  /** The interaction `key` was linked to, when it exists and belongs to the browser presenting `browserCookie`. */
  async findByLink(key: string, browserCookie: string | undefined): Promise<Interaction | undefined> {
    if (!browserCookie || key.length > 512) return undefined;
    const id = await this.links.get(`link:${storeKeyHash(key)}`);
    return id === undefined ? undefined : this.find(id, browserCookie);
  }

  /**
   * The interaction whoever asks, without the browser check: only to choose which error page to show
   * a browser that does not present the binding cookie (and in which language), never to act on it.
   */
  async peek(id: string): Promise<Interaction | undefined> {
    return id.length > 64 ? undefined : this.records.get(id);
  }

  async save(interaction: Interaction): Promise<void> {
    await this.records.set(interaction.id, interaction, Math.max(1, interaction.expiresAt - this.clock()));
    // A step that ran while another request finished the interaction must not bring it back.
    if ((await this.done.get(`done:${interaction.id}`)) !== undefined) await this.records.delete(interaction.id);
  }

  /**
   * Ends the interaction; true for the one caller that ended it. The done marker, created atomically,
   * decides: an interaction completes once, even when a concurrent step has just written it back.
   */
  async finish(id: string): Promise<boolean> {
    const first = await this.done.add(`done:${id}`, true, this.lifetimeSeconds * 1000);
    await this.records.delete(id);
    return first;
  }

  static csrfMatches(interaction: Interaction, presented: unknown): boolean {
    return typeof presented === "string" && constantTimeEqual(presented, interaction.csrf);
  }
}
