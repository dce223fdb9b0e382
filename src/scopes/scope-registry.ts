import type { ScopesFile } from "../config/types.generated.ts";
import { type ClientSecret, clientSecrets } from "../crypto/client-secrets.ts";
import { type PublicKeySource, publicKeySource } from "../crypto/client-public-keys.ts";

/** The scope built into OAuth for refresh tokens; not declared in scopes.yaml. */
export const OFFLINE_ACCESS = "offline_access";

export interface ApiResource {
  readonly name: string;
  /** Its ApiSecret (one, or none when it authenticates with keys or cannot introspect). */
  readonly secrets: readonly ClientSecret[];
  /** private_key_jwt at introspection: its keys (jwks, jwks_uri); undefined for a resource with an ApiSecret. */
  readonly keys: PublicKeySource | undefined;
  readonly scopes: ReadonlySet<string>;
}

/** Identity scopes (with the claims each releases) and API scopes (with the resource each belongs to). */
export class ScopeRegistry {
  private readonly identityClaims = new Map<string, readonly string[]>();
  private readonly apiScopeResource = new Map<string, ApiResource>();
  private readonly resources = new Map<string, ApiResource>();

  constructor(file: ScopesFile) {
    for (const s of file.identity_scopes) this.identityClaims.set(s.name, s.claims);
    for (const r of file.api_resources) {
      const resource: ApiResource = {
        name: r.name,
        secrets: clientSecrets(r.api_secret_hash, undefined),
        keys: publicKeySource(r),
        scopes: new Set(r.scopes.map((s) => s.name)),
      };
      this.resources.set(r.name, resource);
      for (const s of r.scopes) this.apiScopeResource.set(s.name, resource);
    }
  }

  /** ID scopes (SPEC "Scopes"): the declared identity scopes; offline_access is neither an ID nor an API scope. */
  isIdentityScope(scope: string): boolean {
    return this.identityClaims.has(scope);
  }

  isApiScope(scope: string): boolean {
    return this.apiScopeResource.has(scope);
  }

  /** The claims the given scopes release, `sub` always included. */
  claimsFor(scopes: Iterable<string>): Set<string> {
    const claims = new Set<string>(["sub"]);
    for (const s of scopes) for (const c of this.identityClaims.get(s) ?? []) claims.add(c);
    return claims;
  }

  /** Names of the API resources whose scopes appear in `scopes`, in declaration order. */
  resourcesFor(scopes: Iterable<string>): string[] {
    // In the resources' declared order, each once; without a Set and two arrays per token (hot path).
    const named: string[] = [];
    for (const s of scopes) {
      const r = this.apiScopeResource.get(s);
      if (r && !named.includes(r.name)) named.push(r.name);
    }
    if (named.length < 2) return named;
    return [...this.resources.keys()].filter((n) => named.includes(n));
  }

  resource(name: string): ApiResource | undefined {
    return this.resources.get(name);
  }

  identityScopeNames(): string[] {
    return [...this.identityClaims.keys()];
  }

  apiScopeNames(): string[] {
    return [...this.apiScopeResource.keys()];
  }

  allClaims(): string[] {
    return [...this.claimsFor(this.identityClaims.keys())];
  }
}
