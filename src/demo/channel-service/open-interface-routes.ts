import express from "express";
import { strictJsonBody } from "../../http-kit/strict-json-body.ts";
import type { Approvals } from "./approvals.ts";
import { CHANNEL_SCOPES } from "./channel-scopes.ts";
import { ChannelServiceError } from "./channel-service-error.ts";
import type { MessageBox } from "./message-box.ts";
import { optionalLink, requiredText } from "./message-fields.ts";
import type { ProviderTokenVerifier } from "./provider-token-verifier.ts";

export interface OpenInterfaceDeps {
  verifier: ProviderTokenVerifier;
  messages: MessageBox;
  approvals: Approvals;
  /** The service's address as browsers reach it (approval links). */
  publicUrl: string;
}

const BODY_LIMITS = { limit: "16kb" } as const;

/**
 * The channel's open interface (SPEC: "the channel open interface method SendMsg"), for callers with an
 * access token of our provider for this service (any channel scope). Answers `{ code, msg, data }`:
 *   POST /SendMsg                 { to, text, approve_url? }  → data { id }
 *   POST /approvals               { to, text }                → data { id, url }  an approval request, its page's URL
 *   GET  /approvals/{id}/decision                             → data { id, decision: pending|approved|refused }
 * Bodies are JSON or forms. A decision is answered only to the account that asked (else 404, as unknown).
 */
export function openInterfaceRoutes(deps: OpenInterfaceDeps): express.Router {
  const router = express.Router();
  const bodies = [
    strictJsonBody(BODY_LIMITS.limit, (message) => new ChannelServiceError(400, message)),
    express.urlencoded({ ...BODY_LIMITS, extended: false, parameterLimit: 20 }),
  ];

  router.post("/SendMsg", ...bodies, async (req, res) => {
    const { sub } = await deps.verifier.verify(req.get("authorization"), CHANNEL_SCOPES);
    const to = requiredText(req.body, "to", 200);
    const text = requiredText(req.body, "text", 2000);
    const approveUrl = optionalLink(req.body, "approve_url");
    const message = deps.messages.send({ from: sub, to, text, ...(approveUrl && { approveUrl }) });
    res.set("Cache-Control", "no-store").json({ code: 200, msg: "OK", data: { id: message.id } });
  });

  router.post("/approvals", ...bodies, async (req, res) => {
    const { sub } = await deps.verifier.verify(req.get("authorization"), CHANNEL_SCOPES);
    const approval = deps.approvals.create({
      requester: sub,
      to: requiredText(req.body, "to", 200),
      text: requiredText(req.body, "text", 2000),
    });
    res
      .set("Cache-Control", "no-store")
      .json({ code: 200, msg: "OK", data: { id: approval.id, url: `${deps.publicUrl}/approvals/${approval.id}` } });
  });

  router.get("/approvals/:id/decision", async (req, res) => {
    const { sub } = await deps.verifier.verify(req.get("authorization"), CHANNEL_SCOPES);
    const approval = deps.approvals.get(String(req.params.id));
    if (!approval || approval.requester !== sub) throw new ChannelServiceError(404, "no such approval request");
    res.set("Cache-Control", "no-store").json({ code: 200, msg: "OK", data: { id: approval.id, decision: approval.decision } });
  });

  return router;
}
