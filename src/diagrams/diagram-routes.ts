import { paths } from "../http-kit/paths.ts";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import express, { type Request, type Router } from "express";
import type { Infra } from "../infra/infra.ts";
import { takeScope } from "../infra/scope.ts";
import { resolveLang } from "../i18n/lang.ts";
import { createNonce, writePage } from "../views/page-headers.ts";
import type { DiagramPageData, DiagramsPageData } from "../views/page-data.ts";
import type { ViewEngine } from "../views/view-engine.ts";
import { deploymentMachines, diagramsByHash } from "./deployment-machines.ts";
import { perSnapshot } from "../snapshot/per-snapshot.ts";
import { hashedFile, sendHashedFile, type HashedFile } from "./hashed-file.ts";
import { descriptionKey, type DrawableMachine } from "./machine-catalog.ts";
import { loginTypeFacts } from "./login-type-facts.ts";
import { mermaidStatechart } from "./mermaid-statechart.ts";

/** Where the diagrams are served: the index, `/diagrams/<name>`, and the page's script and stylesheet. */
export const DIAGRAMS_PATH = paths.diagrams;

const STYLESHEET = hashedFile(
  DIAGRAMS_PATH,
  "diagrams",
  "css",
  readFileSync(new URL("./diagram-page.css", import.meta.url)),
  "text/css; charset=utf-8",
);

// mermaid's browser bundle (5 MB): read and hashed on the first diagram page, then kept for the process.
let mermaidBundle: HashedFile | undefined;
function mermaidScript(): HashedFile {
  mermaidBundle ??= hashedFile(
    DIAGRAMS_PATH,
    "mermaid",
    "js",
    readFileSync(createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js")),
    "text/javascript; charset=utf-8",
  );
  return mermaidBundle;
}

interface Diagram extends DrawableMachine {
  source: string;
}

/**
 * The flow diagrams of this provider, drawn in the browser: `GET /diagrams` lists them and
 * `GET /diagrams/<name>` shows one. They are generated once, at start-up, from the machines this
 * provider runs (its login flows with the configured methods, and its plugins' machines), so an
 * operator or auditor sees this deployment's flows, not the repository's demo (docs/diagrams/). A
 * login type's page shows its plan facts above the chart (what login.yaml decides beyond the machine).
 * The pages show only machine structure — state, event and guard names — and the login types'
 * declared rules, and need no session.
 *
 * The diagram page renders the Mermaid source, escaped, inside `<pre class="mermaid">` and loads
 * mermaid (served here under a content-hashed name, cached for a year) with the response's nonce.
 * Its CSP also allows inline styles: mermaid writes a <style> element and style attributes into the
 * SVG it inserts, and without them the drawing is unreadable (black boxes, clipped labels). That is
 * safe here: the page has no form, token or user data to leak, nothing on it comes from a request,
 * and scripts stay nonce-only.
 */
export function diagramRoutes(infra: Infra, views: ViewEngine): Router {
  // Drawn once per policy snapshot: a reload that changes a flow redraws it.
  const diagramsOf = perSnapshot(
    (policy) => new Map<string, Diagram>(deploymentMachines(policy).map((m) => [m.name, { ...m, source: mermaidStatechart(m.machine) }])),
  );
  const router = express.Router();
  const langOf = (req: Request) =>
    resolveLang(typeof req.query.lang === "string" ? req.query.lang : undefined, req.headers["accept-language"]);

  router.get(DIAGRAMS_PATH, (req, res) => {
    const diagrams = diagramsOf(takeScope(infra).policy);
    const data: DiagramsPageData = {
      stylesheetUrl: STYLESHEET.url,
      diagrams: [...diagrams.values()].map((d) => ({
        name: d.name,
        url: `${DIAGRAMS_PATH}/${d.name}`,
        descriptionKey: descriptionKey(d.kind),
        subject: d.subject,
      })),
    };
    writePage(res, 200, views.render("diagrams", data, langOf(req)));
  });

  // A login flow's diagram by its machine hash (an audit trace's link): only while this provider runs that version.
  // Built per policy snapshot: a reload brings new machine versions.
  const byHashOf = perSnapshot(diagramsByHash);
  router.get(`${DIAGRAMS_PATH}/machine/:hash`, (req, res, next) => {
    const name = byHashOf(takeScope(infra).policy).get(req.params.hash);
    if (name === undefined) return next();
    res.redirect(303, `${DIAGRAMS_PATH}/${name}`);
  });

  router.get(`${DIAGRAMS_PATH}/:name`, (req, res, next) => {
    const name = req.params.name;
    if (name === STYLESHEET.url.slice(DIAGRAMS_PATH.length + 1)) return sendHashedFile(req, res, STYLESHEET);
    const script = mermaidScript();
    if (name === script.url.slice(DIAGRAMS_PATH.length + 1)) return sendHashedFile(req, res, script);
    const diagram = diagramsOf(takeScope(infra).policy).get(name);
    if (!diagram) return next();
    const nonce = createNonce();
    const data: DiagramPageData = {
      name: diagram.name,
      descriptionKey: descriptionKey(diagram.kind),
      subject: diagram.subject,
      source: diagram.source,
      ...(diagram.loginType && { plan: { loginType: diagram.loginType.name, facts: loginTypeFacts(diagram.loginType) } }),
      indexUrl: DIAGRAMS_PATH,
      stylesheetUrl: STYLESHEET.url,
      scriptUrl: script.url,
      nonce,
    };
    writePage(res, 200, views.render("diagram", data, langOf(req)), { nonce, inlineStyles: true });
  });

  return router;
}
