import express from "express";
import { DemoPageError } from "../kit/demo-page-error.ts";
import { formField } from "../kit/form-field.ts";
import { html } from "../kit/html.ts";
import { pageErrorHandler } from "../kit/page-error-handler.ts";
import type { PageSessions } from "../kit/page-sessions.ts";
import { sendPage } from "../kit/send-page.ts";
import type { Approval, Approvals } from "./approvals.ts";
import type { MessageBox } from "./message-box.ts";

export interface ApprovalPagesDeps {
  messages: MessageBox;
  approvals: Approvals;
  /** The CSRF sessions of the approval forms. */
  sessions: PageSessions<Record<string, never>>;
}

/**
 * The channel's own pages for people (a demo: there is no sign-in, see docs/decisions.md):
 *   GET  /messages?to=<account>  an account's inbox (SendMsg), newest first, approval links as links
 *   GET  /approvals/{id}         "<requester> asks to sign in on a PC: <text>" with Approve / Refuse
 *   POST /approvals/{id}         the answer (decision=approve|refuse, csrf); an answer is final (409 after)
 */
export function approvalPages(deps: ApprovalPagesDeps): express.Router {
  const router = express.Router();

  router.get("/messages", (req, res) => {
    const to = typeof req.query.to === "string" ? req.query.to : "";
    const form = html`<form method="get" action="/messages"><label>Account <input name="to" value="${to}"></label> <button>Show messages</button></form>`;
    if (to === "") return sendPage(res, "Channel messages", form);
    const list = deps.messages
      .to(to)
      .map(
        (m) =>
          html`<li><p><strong>${m.from}</strong> (${m.sentAt.toISOString()}): ${m.text}</p>${m.approveUrl ? html`<p><a href="${m.approveUrl}">Open the approval page</a></p>` : ""}</li>`,
      );
    sendPage(res, `Messages to ${to}`, html`${form}${list.length ? html`<ul>${list}</ul>` : html`<p>No messages.</p>`}`, {
      refreshSeconds: 5,
    });
  });

  router.get("/approvals/:id", (req, res) => {
    const approval = pendingOrAnswered(deps.approvals, String(req.params.id));
    if (approval.decision !== "pending") return sendPage(res, "Sign-in request", answered(approval));
    // One session per browser, so two open approval pages both keep a valid form.
    const { csrf } = deps.sessions.find(req) ?? deps.sessions.start(res, {});
    sendPage(
      res,
      "Sign-in request",
      html`<p>${approval.requester} asks to sign in on a PC: ${approval.text}</p>
<form method="post" action="/approvals/${approval.id}"><input type="hidden" name="csrf" value="${csrf}">
<button name="decision" value="approve">Approve</button><button name="decision" value="refuse">Refuse</button></form>`,
    );
  });

  router.post("/approvals/:id", express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }), (req, res) => {
    deps.sessions.forPost(req);
    const approval = pendingOrAnswered(deps.approvals, String(req.params.id));
    const decision = formField(req.body, "decision");
    if (decision !== "approve" && decision !== "refuse") throw new DemoPageError(400, "Choose Approve or Refuse.");
    if (!deps.approvals.decide(approval.id, decision === "approve" ? "approved" : "refused"))
      return sendPage(res, "Sign-in request", answered(approval), { status: 409 });
    sendPage(
      res,
      "Sign-in request",
      html`<p>Thank you: you ${decision === "approve" ? "approved" : "refused"} the sign-in of ${approval.requester}.</p>`,
    );
  });

  router.use(pageErrorHandler);
  return router;
}

function pendingOrAnswered(approvals: Approvals, id: string): Approval {
  const approval = approvals.get(id);
  if (!approval) throw new DemoPageError(404, "This sign-in request does not exist or has expired.");
  return approval;
}

const answered = (approval: Approval) => html`<p>This request of ${approval.requester} was already answered: ${approval.decision}.</p>`;
