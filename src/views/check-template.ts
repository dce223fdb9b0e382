/// <reference types="handlebars" />
import type { Translations } from "./load-translations.ts";

type Node = hbs.AST.Node;

/** What a template must not do, checked on its syntax tree once at start-up. */
export interface TemplateRules {
  /** Where the template came from, for the messages. */
  file: string;
  translations: Translations;
  /** Only the layout may write raw HTML ({{{body}}}). */
  allowUnescaped: boolean;
}

export interface TemplateCheck {
  problems: string[];
  /** Partials named literally ({{> name}}), to be checked once all are known. */
  partials: string[];
}

/**
 * Walks a template in document order and reports:
 * - `{{{…}}}` / `{{& …}}` outside the layout (every reflected value must be escaped);
 * - `{{t "key"}}` with a key missing from the UI strings, or whose hash does not name exactly the
 *   string's `{placeholders}`;
 * - `{{json …}}` outside a `<script>` element (its output is safe in script text only).
 */
export function checkTemplate(ast: hbs.AST.Program, rules: TemplateRules): TemplateCheck {
  const problems: string[] = [];
  const partials: string[] = [];
  let inScript = false;
  const where = (node: Node) => `${rules.file}:${node.loc?.start.line ?? "?"}`;

  const visit = (node: Node | null | undefined): void => {
    if (!node) return;
    switch (node.type) {
      case "Program":
        for (const statement of (node as hbs.AST.Program).body) visit(statement);
        return;
      case "ContentStatement":
        inScript = scriptStateAfter((node as hbs.AST.ContentStatement).value, inScript);
        return;
      case "MustacheStatement": {
        const mustache = node as hbs.AST.MustacheStatement;
        if (!mustache.escaped && !rules.allowUnescaped) {
          problems.push(`${where(node)}: unescaped output {{{…}}} is allowed only in the layout; use {{…}}`);
        }
        checkCall(mustache);
        return;
      }
      case "SubExpression":
        checkCall(node as hbs.AST.SubExpression);
        return;
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement;
        checkCall(block);
        visit(block.program);
        visit(block.inverse);
        return;
      }
      case "PartialStatement":
      case "PartialBlockStatement": {
        const partial = node as hbs.AST.PartialStatement;
        if (partial.name.type === "PathExpression") partials.push((partial.name as hbs.AST.PathExpression).original);
        else visit(partial.name);
        for (const param of partial.params) visit(param);
        visitHash(partial.hash);
        if (node.type === "PartialBlockStatement") visit((node as hbs.AST.PartialBlockStatement).program);
        return;
      }
      default:
        return;
    }
  };

  const visitHash = (hash: hbs.AST.Hash | undefined) => {
    for (const pair of hash?.pairs ?? []) visit(pair.value);
  };

  const checkCall = (call: hbs.AST.MustacheStatement | hbs.AST.SubExpression | hbs.AST.BlockStatement) => {
    const name = call.path.type === "PathExpression" ? (call.path as hbs.AST.PathExpression).original : undefined;
    if (name === "t") checkTranslation(call);
    if (name === "json" && !inScript) problems.push(`${where(call)}: {{json …}} is allowed only inside <script>`);
    for (const param of call.params) visit(param);
    visitHash(call.hash);
  };

  const checkTranslation = (call: hbs.AST.MustacheStatement | hbs.AST.SubExpression | hbs.AST.BlockStatement) => {
    const key = call.params[0];
    if (key?.type !== "StringLiteral") return; // a key from data ({{t errorKey}}) is checked when rendered
    const text = (key as hbs.AST.StringLiteral).value;
    if (!rules.translations.has(text)) {
      problems.push(`${where(call)}: missing UI string "${text}" (add it to every views/i18n/*.yaml)`);
      return;
    }
    const given = (call.hash?.pairs ?? [])
      .map((pair) => pair.key)
      .sort()
      .join(",");
    const wanted = rules.translations.placeholders(text).join(",");
    if (given !== wanted) {
      problems.push(`${where(call)}: {{t "${text}"}} must pass exactly {${wanted}} (passes {${given}})`);
    }
  };

  visit(ast);
  return { problems, partials };
}

// Whether template text leaves us inside a <script> element.
function scriptStateAfter(text: string, inScript: boolean): boolean {
  const lower = text.toLowerCase();
  const open = lower.lastIndexOf("<script");
  const close = lower.lastIndexOf("</script");
  if (open === -1 && close === -1) return inScript;
  return open > close;
}
