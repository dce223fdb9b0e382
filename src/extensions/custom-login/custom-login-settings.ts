import { parseDuration, type ConfigData } from "../../plugin-contract/index.ts";

/** config/custom-login.yaml, in the units the code uses. */
export interface CustomLoginSettings {
  /** The clients that may be LoginJs's clientId, with the scopes they define for other PC clients. */
  readonly clients: ReadonlyMap<string, { readonly ownScopes: readonly string[] }>;
  readonly qrLifetimeMs: number;
  readonly operationLifetimeMs: number;
  readonly maxDataLength: number;
  /** Scan sessions one client address may start per window (LoginJs and Renew). */
  readonly scanSessionsPerIp: { readonly max: number; readonly windowMs: number };
  /** provider.yaml listen.trust_proxy: whether the client address comes from X-Forwarded-For. */
  readonly trustProxy: boolean;
}

/** Built once per configuration (a reload brings a new one): requests read the settings without rebuilding them. */
const built = new WeakMap<ConfigData, CustomLoginSettings>();

export function customLoginSettings(config: ConfigData): CustomLoginSettings {
  let settings = built.get(config);
  if (!settings) {
    settings = buildSettings(config);
    built.set(config, settings);
  }
  return settings;
}

function buildSettings(config: ConfigData): CustomLoginSettings {
  const file = config.custom_login;
  return {
    clients: new Map(file.clients.map((c) => [c.client_id, { ownScopes: c.own_scopes }])),
    qrLifetimeMs: parseDuration(file.qr_lifetime) * 1000,
    operationLifetimeMs: parseDuration(file.operation_lifetime) * 1000,
    maxDataLength: file.max_data_length,
    scanSessionsPerIp: { max: file.scan_sessions_per_ip.max, windowMs: parseDuration(file.scan_sessions_per_ip.window) * 1000 },
    trustProxy: config.provider.listen.trust_proxy,
  };
}
