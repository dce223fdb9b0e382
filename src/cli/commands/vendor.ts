import { vendorSignature } from "../../login-policy/vendor-signature.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { resolveCliSettings } from "../support/resolve-cli-settings.ts";
import { CONFIG_OPTION } from "./config-options.ts";
import { loadCliConfig } from "../support/load-cli-config.ts";

/**
 * `portcullis vendor sign --client ID --redirect-uri URI --login-hint ID:ACCOUNT`: the `signature` of a
 * MyVendor login link, as the vendor's system computes it (SHA-1 of redirect_uri + login_hint + the
 * client's signing key), for trying the demo or checking a vendor's implementation. It signs only what
 * the provider would accept: a registered redirect URI and a login_hint naming this client.
 */
export const vendorCommand: Command = {
  name: "vendor",
  summary: "sign: print the MyVendor signature of a redirect URI and login_hint with a client's signing key",
  positionals: { usage: "sign", max: 1 },
  options: {
    ...CONFIG_OPTION,
    client: { type: "string", valueName: "CLIENT_ID", description: "the MyVendor client whose signing_key signs" },
    "redirect-uri": { type: "string", valueName: "URI", description: "one of the client's registered redirect URIs" },
    "login-hint": { type: "string", valueName: "CLIENT_ID:ACCOUNT", description: "the vendor account the link logs in" },
  },
  async run({ values, positionals, stdout, stderr, env }) {
    const [action] = positionals;
    const [clientId, redirectUri, loginHint] = [values.client, values["redirect-uri"], values["login-hint"]].map((v) =>
      typeof v === "string" ? v : undefined,
    );
    if (action !== "sign" || !clientId || !redirectUri || !loginHint)
      throw new CliError("expected vendor sign --client ID --redirect-uri URI --login-hint ID:ACCOUNT", { showUsage: true });
    const { configDir } = resolveCliSettings(values, env);
    const config = await loadCliConfig(configDir, env, stderr);
    if (!config) return 1;
    const client = config.clients.clients.find((c) => c.client_id === clientId);
    if (!client) throw new CliError(`no client "${clientId}" in clients.yaml`);
    if (client.signing_key === undefined) throw new CliError(`client "${clientId}" has no signing_key`);
    if (!client.redirect_uris.includes(redirectUri))
      throw new CliError(`"${redirectUri}" is not a registered redirect URI of ${clientId} (${client.redirect_uris.join(", ") || "none"})`);
    if (!loginHint.startsWith(`${clientId}:`) || loginHint.length === clientId.length + 1)
      throw new CliError(`login_hint must be ${clientId}:<account>`);
    stdout.write(`${vendorSignature(redirectUri, loginHint, client.signing_key)}\n`);
    return 0;
  },
};
