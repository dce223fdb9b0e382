import type { Clock } from "../time/clock.ts";
import type { Store } from "../stores/store.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Enrollments } from "../enrollments/enrollments.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { AttemptLimiter } from "../security/attempt-limiter.ts";

/**
 * What the trusted app's server side uses: a part of what factor plugins are given (PluginServices is
 * one), spelled out here so that the trusted app depends on the services it needs, not on the plugin
 * contract that re-exports it.
 */
export interface TrustedAppServices {
  readonly issuer: string;
  readonly clock: Clock;
  readonly store: Store;
  readonly secretBox: SecretBox;
  readonly enrollments: Enrollments;
  readonly users: Pick<UserDirectory, "isActive">;
  /** The qrcode method's attempts count a wrong number on the approve call (login-challenges.ts). */
  readonly methods: ReadonlyMap<string, { readonly context: { readonly attempts: AttemptLimiter } }>;
}
