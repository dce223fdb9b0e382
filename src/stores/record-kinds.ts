/** What a store knows of one kind of record. */
export interface RecordTraits {
  /** Survives a restart of the embedded store (journaled), and waits for replicas on Redis when they are configured. */
  readonly durable: boolean;
  /**
   * A value stored is never changed in place afterwards, by its writer or by a reader (a change is a new
   * value, set again), so the embedded store may keep it by reference, frozen, instead of as JSON
   * (memory-record-store.ts).
   */
  readonly immutable?: boolean;
}

export type RecordKinds = Readonly<Record<string, RecordTraits>>;

/**
 * The kinds a store serves: the core's (store.ts) and those the installed plug-ins' manifests declare,
 * which the composition root hands over (Store.declare) before any of them is used. The store does not
 * know which plug-ins are installed, so it cannot import their list.
 */
export class RecordKindTable {
  readonly #kinds = new Map<string, RecordTraits>();

  constructor(core: RecordKinds) {
    for (const [kind, traits] of Object.entries(core)) this.#kinds.set(kind, traits);
  }

  /** The kinds of `declared` not known yet; a kind declared again must have the same traits. */
  add(declared: RecordKinds): [string, RecordTraits][] {
    const added: [string, RecordTraits][] = [];
    for (const [kind, traits] of Object.entries(declared)) {
      const known = this.#kinds.get(kind);
      if (known === undefined) {
        this.#kinds.set(kind, traits);
        added.push([kind, traits]);
      } else if (known.durable !== traits.durable || Boolean(known.immutable) !== Boolean(traits.immutable)) {
        throw new Error(`record kind ${kind} is declared twice with different traits`);
      }
    }
    return added;
  }

  /** A kind's traits; an undeclared kind is a programming error, named here rather than lost as records nobody finds. */
  traits(kind: string): RecordTraits {
    const traits = this.#kinds.get(kind);
    if (traits === undefined) throw new Error(`unknown record kind: ${kind} (a plug-in declares its kinds in its manifest)`);
    return traits;
  }

  entries(): IterableIterator<[string, RecordTraits]> {
    return this.#kinds.entries();
  }
}
