import { Counter, type Registry } from "prom-client";
import type { AuditTrail } from "../audit/audit-trail.ts";
import { BoundedLabel } from "./bounded-label.ts";

/**
 * Logins by flow and outcome and tokens issued by grant, counted from the audit trail: the one place
 * every layer already reports these acts, so the counters cannot disagree with what auditors see.
 * Returns the function that stops counting.
 */
export function countAuditEvents(registry: Registry, audit: AuditTrail): () => void {
  const logins = new Counter({
    name: "portcullis_logins_total",
    help: "Logins that ended (succeeded) and attempts refused (failed), by flow (the flow id, e.g. default or login_type.eID; extension or password_grant for logins that run no flow) and outcome",
    labelNames: ["flow", "outcome"],
    registers: [registry],
  });
  const tokens = new Counter({
    name: "portcullis_tokens_issued_total",
    help: "Tokens issued, by grant and token type",
    labelNames: ["grant", "token_type"],
    registers: [registry],
  });
  // Flow ids come from the config and grants from the code, but a bound costs nothing and survives mistakes.
  const flows = new BoundedLabel(100);
  const grants = new BoundedLabel(20);
  return audit.subscribe((event) => {
    switch (event.type) {
      case "login.succeeded":
      case "login.failed":
        logins.inc({ flow: flows.of(event.flow_id), outcome: event.type === "login.succeeded" ? "succeeded" : "failed" });
        break;
      case "token.issued": {
        // One event per token response: its access token, and the ID and refresh tokens it carried.
        const grant = grants.of(event.grant);
        tokens.inc({ grant, token_type: "access_token" });
        if (event.id_token) tokens.inc({ grant, token_type: "id_token" });
        if (event.refresh_token) tokens.inc({ grant, token_type: "refresh_token" });
        break;
      }
    }
  });
}
