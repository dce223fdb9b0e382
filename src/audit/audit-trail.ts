import type { AuditEvent } from "./audit-event.ts";

/** Hears every audit event as it is recorded (metrics count them; tests collect them). */
export type AuditListener = (event: AuditEvent) => void;

/**
 * Where the provider records audit events. Recording never throws and never waits: an audit sink that
 * fails must not fail a login. Listeners are told synchronously, after the event is written.
 */
export interface AuditTrail {
  record(event: AuditEvent): void;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: AuditListener): () => void;
  /**
   * Resolves once what the sink buffers is written, and stops its batching: the provider's close() waits
   * for it. An event recorded afterwards is still written, at once. Absent: nothing buffered.
   */
  close?(): Promise<void>;
}

/** An audit trail that keeps events in memory and tells its listeners: the base of every sink. */
export class ListenedAuditTrail implements AuditTrail {
  private readonly write: (event: AuditEvent) => void;
  private readonly listeners = new Set<AuditListener>();

  constructor(write: (event: AuditEvent) => void = () => {}) {
    this.write = write;
  }

  record(event: AuditEvent): void {
    try {
      this.write(event);
    } catch {
      // The sink is best effort here; the sink itself reports its failures.
    }
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: AuditListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
