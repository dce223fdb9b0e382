import type { LoadedConfig } from "../../config/load-config.ts";
import { createAuditTrail, type StreamedAuditTrail } from "../../audit/create-audit-trail.ts";

/**
 * The audit trail provider.yaml names, for an operator's command that changes what the provider keeps
 * (enrollments, signing keys): audited like the provider's own acts. A trail on stdout goes to stderr
 * instead, so it does not mix with the command's output.
 */
export function operatorAuditTrail(config: LoadedConfig): StreamedAuditTrail {
  const settings = config.provider.audit;
  return createAuditTrail(settings.destination === "stdout" ? { ...settings, destination: "stderr" } : settings, config.provider.data_dir);
}
