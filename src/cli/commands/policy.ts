import { ConfigError } from "../../errors/config-error.ts";
import { paths } from "../../http-kit/paths.ts";
import { readAuthorizeParams } from "../../http/authorize/authorize-params.ts";
import { isPushedRequestUri } from "../../oauth/pushed-requests.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { printConfigError } from "../support/print-config-error.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { explainAuthorizeRequest, type AuthorizeVariant } from "../policy/explain-authorize-request.ts";
import { formatExplanation } from "../policy/format-explanation.ts";
import { loadExplainPolicy } from "../policy/load-explain-policy.ts";
import { readUserReadiness } from "../policy/read-user-readiness.ts";
import { CONFIG_OPTION } from "./config-options.ts";

const USAGE = "policy explain '<authorize URL>' [--user NAME] [--json]";

/**
 * `portcullis policy explain '<authorize URL>'`: a what-if for operators and auditors. It loads the
 * configuration as the server does and runs the server's own checks and login plan on the URL's
 * parameters: which login type and flow run, the methods offered, SSO, login_hint, the token rule and
 * claims — or exactly why the request is refused and where the error goes. `--user` adds which offered
 * methods that user has set up (read from the store, which it never writes). Exit 0 accepted, 1
 * refused (or an invalid configuration), 2 a usage mistake.
 */
export const policyCommand: Command = {
  name: "policy",
  summary: "explain what the server does with an authorize URL: login type, flow, methods, SSO, claims, or why it is refused",
  positionals: { usage: "explain '<authorize URL>'", max: 2 },
  options: {
    ...CONFIG_OPTION,
    user: {
      type: "string",
      valueName: "NAME",
      description: "also say which offered methods this user (users.yaml, or a vendor account) has set up",
    },
    json: { type: "boolean", description: "print the explanation as JSON" },
  },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action, address] = positionals;
    if (action !== "explain" || address === undefined) throw new CliError(`expected ${USAGE}`, { showUsage: true });
    const url = parseAuthorizeUrl(address);
    const variant = variantOf(url.pathname);
    // A pushed request's parameters are in the server's store, for one use: what can be explained is what the client pushed.
    const requestUri = url.searchParams.get("request_uri");
    if (requestUri !== null && isPushedRequestUri(requestUri))
      throw new CliError("the URL names a pushed request (request_uri): explain the parameters the client pushed, as the URL's query", {
        showUsage: true,
      });
    const { configDir } = resolveCliSettings(values, env);
    let loaded;
    try {
      loaded = await loadExplainPolicy(configDir, env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      printConfigError(error, configDir, stderr);
      return 1;
    }
    const explanation = explainAuthorizeRequest(
      loaded.policy,
      readAuthorizeParams(url.searchParams, loaded.config.provider.security.max_parameter_length),
      variant,
    );
    const userName = typeof values.user === "string" ? values.user : undefined;
    const user =
      userName !== undefined && explanation.accepted ? await readUserReadiness(loaded, userName, explanation, stderr) : undefined;
    stdout.write(
      values.json ? `${JSON.stringify({ ...explanation, ...(user && { user }) }, null, 2)}\n` : formatExplanation(explanation, user),
    );
    return explanation.accepted ? 0 : 1;
  },
};

function parseAuthorizeUrl(address: string): URL {
  try {
    // A path alone (`/connect/authorize?...`) is read against any origin: only the path and query matter.
    return new URL(address, "http://issuer.invalid");
  } catch {
    throw new CliError(`not a URL: ${JSON.stringify(address.slice(0, 80))}`, { showUsage: true });
  }
}

/** The endpoint the URL's path names (behind any path the issuer has), as the server serves it. */
function variantOf(pathname: string): AuthorizeVariant {
  const ends = (path: string) => pathname === path || pathname.endsWith(path);
  if (ends(paths.authorize)) return { endpoint: "authorize", framed: false };
  if (ends(paths.accountLogin)) return { endpoint: "authorize", framed: false, forcePrompt: "login" };
  if (ends(paths.iframeAuthorize)) return { endpoint: "authorize", framed: true };
  if (ends(paths.eidAuthorize)) return { endpoint: "eid", framed: false };
  throw new CliError(
    `the URL's path ${JSON.stringify(pathname.slice(0, 80))} is none of ${paths.authorize}, ${paths.accountLogin}, ${paths.iframeAuthorize}, ${paths.eidAuthorize}`,
    { showUsage: true },
  );
}
