import { readFileSync } from "node:fs";
import type { LoadedConfig } from "../../config/load-config.ts";
import { auditFilePath } from "../../audit/create-audit-trail.ts";
import { formatAuditLine, parseAuditLines, traceEvents, type AuditLine } from "../../audit/audit-trace.ts";
import { drawnFlows } from "../../runtime/drawn-flows.ts";
import { DEFAULT_FLOW_ID, loginTypeFlowId } from "../../runtime/login-flows.ts";
import { mermaidStatechart } from "../../diagrams/mermaid-statechart.ts";
import { highlightPath } from "../../diagrams/highlight-path.ts";
import { archivedMachinePath, leafPaths, machineArchiveDir, readArchivedMachine } from "../../diagrams/machine-archive.ts";
import { loginDiagramName } from "../../diagrams/machine-catalog.ts";
import { paths } from "../../http-kit/paths.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { loadCliConfig } from "../support/load-cli-config.ts";

/**
 * `portcullis audit trace <jti, sid or signout_id>`: for one token, session or operator's sign-out of a
 * user, every audit event of it in time order (audit-trace.ts follows jti → session → login, and a
 * sign-out to what it ended), then the login's machine drawn with the path it took
 * highlighted, and where the diagrams page shows that flow. Reads the audit file provider.yaml names
 * (`audit.destination`), or `--file`; needs no store, so it runs beside a live provider.
 */
export const auditCommand: Command = {
  name: "audit",
  summary: "audit trace <jti, sid or signout_id>: a token's, session's or sign-out's audit events and its logins' machine paths",
  positionals: { usage: "trace ID", max: 2 },
  options: {
    ...CONFIG_OPTION,
    file: { type: "string", valueName: "PATH", description: "the audit file to read (default: provider.yaml's audit.destination)" },
  },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action, id] = positionals;
    if (action !== "trace" || !id) throw new CliError("expected: audit trace <jti, sid or signout_id>", { showUsage: true });
    const { configDir } = resolveCliSettings(values, env);
    const config = await loadCliConfig(configDir, env, stderr);
    if (!config) return 1;
    const file = auditFile(config, values.file);
    const { lines, skipped } = parseAuditLines(readAudit(file));
    const trace = traceEvents(lines, id);
    if (trace.length === 0) throw new CliError(`no audit event names ${JSON.stringify(id)} as a jti, sid or signout_id in ${file}`);
    stdout.write(`audit trace of ${id} (${file}${skipped > 0 ? `; ${skipped} unreadable lines skipped` : ""})\n\n`);
    for (const line of trace) stdout.write(`${formatAuditLine(line)}\n`);
    stdout.write(`\n${await loginMachines(config, trace)}`);
    return 0;
  },
};

/** The file to read: --file, else audit.destination when it is a file. */
function auditFile(config: LoadedConfig, flag: string | boolean | undefined): string {
  if (typeof flag === "string") return flag;
  const { destination } = config.provider.audit;
  if (destination === "stdout" || destination === "stderr")
    throw new CliError(
      `the audit trail goes to ${destination} (provider.yaml audit.destination): give the file it was collected in with --file PATH`,
    );
  return auditFilePath(destination, config.provider.data_dir);
}

function readAudit(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read the audit file ${file} (${(error as { code?: string }).code ?? String(error)})`);
  }
}

/**
 * The logins of the trace, each drawn: every success (a token's trace has one; a session's has each
 * login that started or renewed it), else the last failure.
 */
async function loginMachines(config: LoadedConfig, trace: readonly AuditLine[]): Promise<string> {
  const succeeded = trace.filter((line) => line.type === "login.succeeded");
  const logins = succeeded.length > 0 ? succeeded : trace.filter((line) => line.type === "login.failed").slice(-1);
  if (logins.length === 0) return "no login in this trace (a client_credentials token, or a login before the trail began)\n";
  if (logins.length === 1) return loginMachine(config, logins[0]!);
  const drawn: string[] = [];
  for (const [index, login] of logins.entries()) {
    const id = typeof login.login_id === "string" ? `login_id ${login.login_id}, ` : "";
    drawn.push(`login ${index + 1} of ${logins.length} (${id}${login.time}):\n${await loginMachine(config, login)}`);
  }
  return drawn.join("\n");
}

/**
 * One login: the exact machine version it ran, from the provider's archive of versions
 * (src/diagrams/machine-archive.ts) or, when that version was not archived there, from the current
 * configuration if it runs the same version; the path highlighted; its diagram page.
 */
async function loginMachine(config: LoadedConfig, login: AuditLine): Promise<string> {
  const flowId = String(login.flow_id);
  const path = Array.isArray(login.path) ? login.path.map(String) : [];
  if (typeof login.machine_hash !== "string")
    return `login: ${flowId}, path ${path.join(" → ") || "-"} (it ran no login flow of this provider: nothing to draw)\n`;
  const hash = login.machine_hash;
  const out = [`machine: flow ${flowId}, hash ${hash}`, `path:    ${path.join(" → ")}`];
  const current = (await drawnFlows(config)).get(flowId);
  const archived = readArchivedMachine(config.provider.data_dir, hash);
  let drawn: { statechart: string; leaves: ReadonlySet<string> };
  if (archived) {
    out.push(`the exact machine version the login ran, kept in ${archivedMachinePath(config.provider.data_dir, hash)}`);
    if (current?.hash === hash) out.push("(the current configuration runs this version too)");
    else
      out.push(
        current
          ? `(the current configuration's ${flowId} flow is another version, ${current.hash})`
          : `(the current configuration has no flow ${flowId})`,
      );
    drawn = { statechart: archived.statechart, leaves: new Set(archived.leaves) };
  } else if (current) {
    if (current.hash === hash) out.push("the current configuration runs this exact machine version");
    else
      out.push(
        `NOTE: this login ran machine version ${hash}, which is not in ${machineArchiveDir(config.provider.data_dir)}; the current configuration's ${flowId} flow is version ${current.hash}. The diagram below is the CURRENT version, not the one the login ran.`,
      );
    drawn = { statechart: mermaidStatechart(current.machine), leaves: new Set(leafPaths(current.machine)) };
  } else {
    return `${[...out, `version ${hash} is not in ${machineArchiveDir(config.provider.data_dir)} and the current configuration has no flow ${flowId}: the machine cannot be drawn`].join("\n")}\n`;
  }
  const page = diagramPage(config, flowId);
  const diagrams = `${config.provider.issuer}${paths.diagrams}`;
  if (!page) out.push("diagram page: none (this flow is built for the method list a login asked for)");
  else if (current?.hash === hash)
    out.push(`diagram page: ${diagrams}/machine/${hash} (leads to ${diagrams}/${page} while the provider runs this version)`);
  else out.push(`diagram page of the current version: ${diagrams}/${page} (${diagrams}/machine/${hash} no longer leads anywhere)`);
  out.push("", "```mermaid", highlightPath(drawn.statechart, drawn.leaves, path).trimEnd(), "```");
  return `${out.join("\n")}\n`;
}

/** The diagrams page's name for a flow it draws: the default flow and each login type's (two-factor, second-factor, eID). */
function diagramPage(config: LoadedConfig, flowId: string): string | undefined {
  if (flowId === DEFAULT_FLOW_ID) return loginDiagramName(DEFAULT_FLOW_ID);
  const name = Object.keys(config.login.login_types ?? {}).find((declared) => loginTypeFlowId(declared) === flowId);
  return name === undefined ? undefined : loginDiagramName(name);
}
