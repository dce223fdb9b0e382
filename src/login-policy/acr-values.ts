import type { AcrDeclaration, LoginClaim } from "./login-policy.ts";
import { firstRepeated, shown, splitMethodList } from "./method-list.ts";

/**
 * A request's `acr_values` read against the declared values (login.yaml `acr_values`, the spec's table)
 * into what they require of a login.
 *
 * Values are space-separated and may be combined; each is matched to a declaration without regard to
 * case, as login_type is (`2FA` is the declared `2fa`: a request is never answered by a weaker login
 * than it asks for because of its letters' case). A declared value is read strictly: a malformed one is
 * a clear invalid_request, never a weaker login. Any other value is voluntary (OIDC Core §3.1.2.1) and
 * kept, unacted on. Syntax only: whether a named method exists or may be used here is the login plan's
 * question (plan-login.ts), which also has the other parameters.
 */
export interface AcrRequirements {
  /** The declared values the request matched, in the order sent. */
  matched: AcrMatch[];
  /** The login type a value selects (lower-cased, as LoginPolicy.loginTypes keys it) and the value that selects it. */
  loginType?: { type: string; by: string };
  /** The methods an `argument: methods` value names (`2fa:<methods>`), in the order offered; empty when none are named. */
  methods: string[];
  /** The methods the login must pass one of (every `methods` declaration at once), and the values that ask. */
  requiredMethods?: { methods: string[]; by: string[] };
  /** A value that must stand alone (`alone: true`, the spec's must_bfido). */
  alone?: string;
  /** The channel check, with the one channel an `argument: channel` value names. */
  channel?: { id?: string };
  /** The login claims the tokens get. */
  claims: LoginClaim[];
  /** Values that are not declared: voluntary, kept as sent. */
  voluntary: string[];
}

/** One value of the request and the declaration it matched. */
export interface AcrMatch {
  /** As sent, argument included (`2FA:totp`). */
  sent: string;
  /** The declaration's name as written in login.yaml (`2fa`). */
  declared: string;
}

export type AcrParseResult = { ok: true; requirements: AcrRequirements } | { ok: false; description: string };

/** At most this many values: each costs work, and no real request needs more. */
export const MAX_ACR_VALUES = 16;

const METHOD_ID = /^[a-z][a-z0-9_]{0,31}$/;
const CHANNEL_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Reads `acr_values` (undefined or empty: no requirement) against `declared` (keyed by lower-cased name). Never throws. */
export function parseAcrValues(value: string | undefined, declared: ReadonlyMap<string, AcrDeclaration>): AcrParseResult {
  const requirements: AcrRequirements = { matched: [], methods: [], claims: [], voluntary: [] };
  const values = (value ?? "").split(" ").filter((v) => v !== "");
  if (values.length > MAX_ACR_VALUES) return refuse(`acr_values has more than ${MAX_ACR_VALUES} values`);
  for (const acr of values) {
    const problem = readValue(acr, declared, requirements);
    if (problem !== undefined) return refuse(problem);
  }
  if (requirements.alone !== undefined && requirements.loginType !== undefined) {
    return refuse(
      `acr_values ${requirements.alone} cannot be combined with ${requirements.loginType.by}: it decides the verification itself`,
    );
  }
  return { ok: true, requirements };
}

/** Adds one value to `into`; the problem with it, if any. */
function readValue(acr: string, declared: ReadonlyMap<string, AcrDeclaration>, into: AcrRequirements): string | undefined {
  const [name, argument] = splitOnce(acr);
  const declaration = declared.get(name.toLowerCase());
  // `must_bfido:x` where must_bfido takes no argument is not that value: voluntary, like any unknown one.
  if (declaration === undefined || (argument !== undefined && declaration.argument === undefined)) {
    into.voluntary.push(acr);
    return undefined;
  }
  into.matched.push({ sent: acr, declared: declaration.name });
  const problem = readRequirements(declaration, into) ?? readArgument(declaration, argument, into);
  if (problem !== undefined) return problem;
  for (const claim of declaration.claims) if (!into.claims.includes(claim)) into.claims.push(claim);
  return undefined;
}

function readRequirements(declaration: AcrDeclaration, into: AcrRequirements): string | undefined {
  if (declaration.loginType !== undefined) {
    if (into.loginType !== undefined && into.loginType.type !== declaration.loginType)
      return `acr_values ${into.loginType.by} and ${declaration.name} select different login types`;
    into.loginType ??= { type: declaration.loginType, by: declaration.name };
  }
  if (declaration.methods !== undefined) {
    const before = into.requiredMethods;
    const methods = before === undefined ? [...declaration.methods] : before.methods.filter((m) => declaration.methods!.includes(m));
    if (methods.length === 0)
      return `acr_values ${[...before!.by, declaration.name].join(" and ")} require methods no one login can pass together`;
    into.requiredMethods = { methods, by: [...(before?.by ?? []), declaration.name] };
  }
  if (declaration.alone) into.alone ??= declaration.name;
  if (declaration.channel) into.channel ??= {};
  return undefined;
}

function readArgument(declaration: AcrDeclaration, argument: string | undefined, into: AcrRequirements): string | undefined {
  if (argument === undefined) return undefined;
  return declaration.argument === "methods" ? readMethods(declaration.name, argument, into) : readChannel(declaration.name, argument, into);
}

function readMethods(name: string, argument: string, into: AcrRequirements): string | undefined {
  const methods = splitMethodList(argument);
  const bad = methods.find((m) => !METHOD_ID.test(m));
  if (bad !== undefined)
    return bad === ""
      ? `acr_values ${name}:<methods> has an empty method name`
      : `acr_values ${name} names '${shown(bad)}', which is not a method id`;
  const twice = firstRepeated(methods);
  if (twice !== undefined) return `acr_values ${name} names '${twice}' twice`;
  if (into.methods.length > 0 && into.methods.join(",") !== methods.join(",")) return `acr_values names two different ${name} method lists`;
  into.methods = methods;
  return undefined;
}

function readChannel(name: string, argument: string, into: AcrRequirements): string | undefined {
  if (!CHANNEL_ID.test(argument)) return `acr_values ${name}:<channel_id> has a malformed channel id '${shown(argument)}'`;
  if (into.channel?.id !== undefined && into.channel.id !== argument) return `acr_values names two different channels (${name}:<id>)`;
  into.channel = { id: argument };
  return undefined;
}

function splitOnce(acr: string): [string, string | undefined] {
  const colon = acr.indexOf(":");
  return colon < 0 ? [acr, undefined] : [acr.slice(0, colon), acr.slice(colon + 1)];
}

function refuse(description: string): AcrParseResult {
  return { ok: false, description };
}
