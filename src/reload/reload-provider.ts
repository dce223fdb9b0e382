import { loadConfig, type LoadedConfig } from "../config/load-config.ts";
import { ConfigError, formatConfigIssue } from "../errors/config-error.ts";
import type { Infra } from "../infra/infra.ts";
import { takeScope } from "../infra/scope.ts";
import { flowServices } from "../infra/live-services.ts";
import { buildPolicyParts } from "../snapshot/build-policy-parts.ts";
import type { PolicySnapshot } from "../snapshot/policy-snapshot.ts";
import { loadMethodPlugins } from "../runtime/method-plugins.ts";
import { FlowCatalog } from "../runtime/login-flows.ts";
import { policyHash } from "../snapshot/policy-hash.ts";
import { restartOnlyChanges, type RestartOnlyChange } from "./restart-only-changes.ts";
import { logFirstUseOnSignedLinks } from "../login-policy/first-use-on-signed-links.ts";
import { logExpiringClientSecrets } from "../oauth/expiring-client-secrets.ts";

/** What a reload attempt did: swapped to `policyHash`, or refused with every reason. */
export interface ReloadResult {
  ok: boolean;
  /** The hash of the files the attempt read (the running policy's when refused: see `runningHash`). */
  policyHash: string;
  /** The policy served after the attempt. */
  runningHash: string;
  /** One line per problem (file:line:column key: message), empty when ok. */
  errors: string[];
  /** The configuration as loaded (before start-up overrides such as a moved issuer): the next reload compares with it. */
  loaded?: LoadedConfig;
}

/**
 * Reloads the configuration of a running provider: loads and validates everything a start does (schema,
 * references, cross-field rules, each plugin's settings, the login types and flows) without opening a
 * store or keys; refuses changes to settings only a restart applies; then swaps the policy snapshot at
 * once. Anything wrong leaves the old policy serving, and every error is logged (file, line, key) and
 * returned. Each attempt is one `config.reloaded` audit event. `running` is the configuration as last
 * loaded (the start's, then each successful reload's).
 */
export async function reloadProvider(infra: Infra, running: LoadedConfig): Promise<ReloadResult> {
  // A reload is an entry point of its own (SIGHUP, the watch, the admin command): the policy it replaces.
  const { policy: current } = takeScope(infra);
  const hash = await policyHash(current.config);
  let result: ReloadResult;
  try {
    const loaded = await loadConfig(current.config.dir, process.env, current.config.plugInFiles);
    const refused = restartOnlyChanges(running, loaded);
    if (refused.length > 0) throw new ReloadRefused(refused);
    await loadMethodPlugins(loaded.login, loaded.dir);
    infra.policies.swap(buildSnapshot(infra, { ...loaded, provider: current.config.provider }, hash));
    logFirstUseOnSignedLinks(infra.logger, loaded.login);
    logExpiringClientSecrets(infra.logger, loaded.clients, infra.clock());
    result = { ok: true, policyHash: hash, runningHash: hash, errors: [], loaded };
  } catch (error) {
    result = { ok: false, policyHash: hash, runningHash: current.hash, errors: reasonsOf(error) };
    logErrors(infra, error);
  }
  report(infra, result);
  return result;
}

/** The new snapshot over the running methods (their set cannot change without a restart). */
function buildSnapshot(infra: Infra, config: LoadedConfig, hash: string): PolicySnapshot {
  const classes = new Map([...infra.methods].map(([id, method]) => [id, method.plugin.class]));
  const parts = buildPolicyParts(config, hash, classes, infra.eid.accounts, infra.ldapEmployees);
  return { ...parts, flows: new FlowCatalog(flowServices(infra), config.login, infra.methods) };
}

/** One log line per error; a configuration issue also as fields (file, line, column, key) for log queries. */
function logErrors(infra: Infra, error: unknown): void {
  if (error instanceof ConfigError) {
    for (const issue of error.issues) {
      infra.logger.error(
        { event: "config_reload_error", file: issue.file, line: issue.line, column: issue.column, key: issue.path },
        formatConfigIssue(issue),
      );
    }
  } else if (error instanceof ReloadRefused) {
    for (const change of error.changes)
      infra.logger.error({ event: "config_reload_error", file: change.file, key: change.key }, change.message);
  } else for (const reason of reasonsOf(error)) infra.logger.error({ event: "config_reload_error" }, reason);
}

function report(infra: Infra, result: ReloadResult): void {
  const { logger } = infra;
  if (result.ok) logger.info({ event: "config_reloaded", policy_hash: result.policyHash }, "configuration reloaded");
  else {
    logger.error(
      { event: "config_reload_refused", errors: result.errors.length, policy_hash: result.runningHash },
      "configuration reload refused: the previous policy keeps serving",
    );
  }
  infra.audit.record({
    type: "config.reloaded",
    policy_hash: result.policyHash,
    ok: result.ok,
    ...(!result.ok && { errors: result.errors.length }),
  });
}

class ReloadRefused extends Error {
  static readonly code: string = "ERR_RELOAD_REFUSED";
  readonly code: string = "ERR_RELOAD_REFUSED";
  readonly changes: RestartOnlyChange[];

  constructor(changes: RestartOnlyChange[]) {
    super(changes.map((change) => change.message).join("\n"));
    this.changes = changes;
  }
}

function reasonsOf(error: unknown): string[] {
  if (error instanceof ConfigError) return error.issues.map(formatConfigIssue);
  if (error instanceof ReloadRefused) return error.changes.map((change) => change.message);
  return [`reload failed: ${(error as Error).message}`];
}
