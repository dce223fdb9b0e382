/**
 * What an extension declares before anything runs: the path its routes live under, its config file
 * and the store record kinds it owns. The config loader, the store and the app read these (this
 * folder imports nothing, so each of them can); the extension's code (src/extensions/<id>/) is
 * started later, by the provider, through src/extensions/contract/.
 */
export interface ExtensionManifest {
  /** Its name in logs and diagrams (kebab-case). */
  readonly id: string;
  /** Every route of the extension is under this path (`/Acme/CustomLogin`). */
  readonly routePrefix: `/${string}`;
  /** config/<file>, validated by schemas/<schema>; optional (a missing file reads as `{}`, the schema's defaults fill it). */
  readonly configFile: { readonly name: string; readonly file: string; readonly schema: string; readonly optional: true };
  /** The store namespaces it owns; durable ones survive a restart of the embedded store. */
  readonly recordKinds: Readonly<Record<string, { readonly durable: boolean }>>;
  /** The claims its logins add to ID tokens (discovery lists them in claims_supported). */
  readonly idTokenClaims: readonly string[];
}
