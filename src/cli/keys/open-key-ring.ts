import type { Logger } from "pino";
import type { LoadedConfig } from "../../config/load-config.ts";
import { createLogger } from "../../logging/create-logger.ts";
import { createStore } from "../../stores/create-store.ts";
import type { Store } from "../../stores/store.ts";
import { SecretBox } from "../../crypto/secret-box.ts";
import { encryptionKeyMaterial } from "../../crypto/encryption-key.ts";
import { ClientRegistry } from "../../oauth/client-registry.ts";
import { KeyRingStore } from "../../tokens/key-ring-store.ts";
import { rotationPolicy } from "../../tokens/rotation-policy.ts";
import type { RotationPolicy } from "../../tokens/key-rotation.ts";
import type { StaticKey } from "../../tokens/key-manager.ts";
import { storeOpenError } from "../support/store-open-error.ts";
import { loadCliConfig } from "../support/load-cli-config.ts";
import { operatorAuditTrail } from "../support/operator-audit-trail.ts";
import type { StreamedAuditTrail } from "../../audit/create-audit-trail.ts";

export interface OpenedKeyRing {
  config: LoadedConfig;
  policy: RotationPolicy;
  /** keys.static of provider.yaml: then there is no generated ring to change. */
  staticKeys: readonly StaticKey[] | undefined;
  ring: KeyRingStore;
  store: Store;
  logger: Logger;
  /** The configured audit trail: an operator's key change is audited like a scheduled one. */
  audit: StreamedAuditTrail;
}

/**
 * The generated key ring in the store provider.yaml names, opened as a provider node opens it (the same
 * store, encryption key and lifecycle settings), without the rest of the provider. Undefined after
 * printing an invalid configuration. With the embedded store this fails while the provider runs (it
 * holds the data directory): storeOpenError says to stop it first or use Redis or PostgreSQL.
 */
export async function openKeyRing(
  configDir: string,
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream,
): Promise<OpenedKeyRing | undefined> {
  const config = await loadCliConfig(configDir, env, stderr);
  if (!config) return undefined;
  const settings = config.provider;
  const logger = createLogger("warn", stderr as never);
  const policy = rotationPolicy(config, new ClientRegistry(config.clients.clients, settings.lifetimes));
  // Before the store: a key that does not open leaves nothing to close.
  const box = new SecretBox(encryptionKeyMaterial(settings.secrets.encryption_key, settings.data_dir));
  let store: Store;
  try {
    store = await createStore(settings.store.url, { dataDir: settings.data_dir, logger });
  } catch (error) {
    throw storeOpenError(error) ?? error;
  }
  const ring = new KeyRingStore({ store, box, modulusLength: settings.keys.modulus_length });
  return {
    config,
    policy,
    staticKeys: settings.keys.static?.length ? settings.keys.static : undefined,
    ring,
    store,
    logger,
    audit: operatorAuditTrail(config),
  };
}
