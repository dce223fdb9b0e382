import type { AcrDeclaration, LoginClaim } from "./login-policy.ts";
import { firstRepeated, shown, splitMethodList } from "./method-list.ts";

/**
 * A request's `acr_values` read against the declared values (login.yaml `acr_values`, the spec's table)
 * into what they require of a login.
 *
 * Values are space-separated and may be combined; each is matched to a declaration without regard to
 * case, as login_type is (`2FA` is the declared `2fa`: a request is never answered by a weaker login
 * than it asks for because of its letters' case). acr_values is a list of preferences (OIDC Core
 * §3.1.2.1): values are taken in the order sent, and one that contradicts what the request's
 * login_type or fa, or an earlier value, already asks (two login types, must_bfido beside a login
 * type, methods no one login can pass together, two method lists, two channels) is set aside
 * (`dropped`) rather than failing the request; the first value that can be met always is. A declared
 * value that is malformed (`2fa:TOTP!`, `req_chnl:a<b`) is a clear invalid_request, never a weaker login.
 * Any other value is voluntary and kept, unacted on. Syntax only: whether a named method exists or may be
 * used here is the login plan's question (plan-login.ts).
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
  /** Declared values set aside because an earlier value or the request's login_type or fa contradicts them, in the order sent. */
  dropped: { sent: string; reason: string }[];
}

/** What the request's other parameters already ask, against which acr_values are read (they come first). */
export interface AcrContext {
  /** login_type as sent, or the eID endpoint's type (lower-cased). */
  loginType?: string;
  /** Whether fa was sent (it chooses the methods). */
  fa?: boolean;
  /**
   * The methods a declared login type (lower-cased) offers: a value whose required methods the login
   * type in force offers none of cannot be served by it, and is set aside like any other contradiction.
   */
  methodsOf?: (loginType: string) => readonly string[] | undefined;
}

/** How one value reads: taken, set aside for a contradiction, or malformed. */
type ValueReading = { taken: true } | { taken: false; conflict: string } | { taken: false; malformed: string };

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

/**
 * Reads `acr_values` (undefined or empty: no requirement) against `declared` (keyed by lower-cased name),
 * after what `context` (the request's login_type and fa) already asks. Never throws.
 */
export function parseAcrValues(
  value: string | undefined,
  declared: ReadonlyMap<string, AcrDeclaration>,
  context: AcrContext = {},
): AcrParseResult {
  let requirements: AcrRequirements = { matched: [], methods: [], claims: [], voluntary: [], dropped: [] };
  const values = (value ?? "").split(" ").filter((v) => v !== "");
  if (values.length > MAX_ACR_VALUES) return refuse(`acr_values has more than ${MAX_ACR_VALUES} values`);
  for (const acr of values) {
    // Each value is tried on a copy: one that is set aside leaves nothing of itself behind.
    const trial = copyOf(requirements);
    const reading = readValue(acr, declared, trial, context);
    if ("malformed" in reading) return refuse(reading.malformed);
    if ("conflict" in reading) requirements.dropped.push({ sent: acr, reason: reading.conflict });
    else requirements = trial;
  }
  return { ok: true, requirements };
}

function copyOf(r: AcrRequirements): AcrRequirements {
  return {
    ...r,
    matched: [...r.matched],
    methods: [...r.methods],
    claims: [...r.claims],
    voluntary: [...r.voluntary],
    dropped: [...r.dropped],
    ...(r.requiredMethods && { requiredMethods: { methods: [...r.requiredMethods.methods], by: [...r.requiredMethods.by] } }),
    ...(r.channel && { channel: { ...r.channel } }),
  };
}

/**
 * The declaration a value names (its name before any `:<argument>`, without regard to case), or
 * undefined for a voluntary value: an undeclared name, or an argument where the declaration takes none
 * (`must_bfido:x` is not must_bfido).
 */
export function declarationOf(acr: string, declared: ReadonlyMap<string, AcrDeclaration>): AcrDeclaration | undefined {
  const [name, argument] = splitOnce(acr);
  const declaration = declared.get(name.toLowerCase());
  return declaration === undefined || (argument !== undefined && declaration.argument === undefined) ? undefined : declaration;
}

/** Adds one value to `into`, or says why it is set aside or malformed. */
function readValue(acr: string, declared: ReadonlyMap<string, AcrDeclaration>, into: AcrRequirements, context: AcrContext): ValueReading {
  const declaration = declarationOf(acr, declared);
  if (declaration === undefined) {
    into.voluntary.push(acr);
    return { taken: true };
  }
  const argument = splitOnce(acr)[1];
  into.matched.push({ sent: acr, declared: declaration.name });
  // A malformed argument is the client's mistake whatever else it contradicts: said first.
  const malformed = malformedArgument(declaration, argument);
  if (malformed !== undefined) return { taken: false, malformed };
  const conflict = readRequirements(declaration, into, context) ?? readArgument(declaration, argument, into, context);
  if (conflict !== undefined) return { taken: false, conflict };
  for (const claim of declaration.claims) if (!into.claims.includes(claim)) into.claims.push(claim);
  return { taken: true };
}

/** What contradicts the request's parameters or an earlier value, if anything; else adds the declaration's requirements. */
function readRequirements(declaration: AcrDeclaration, into: AcrRequirements, context: AcrContext): string | undefined {
  if (declaration.loginType !== undefined) {
    if (context.loginType !== undefined && context.loginType !== declaration.loginType)
      return `asks for another login type than the request's login_type`;
    if (into.loginType !== undefined && into.loginType.type !== declaration.loginType)
      return `selects another login type than ${into.loginType.by}`;
    if (into.alone !== undefined) return `${into.alone} decides the verification itself`;
    const unserved = unservedBy(declaration.loginType, into.requiredMethods?.methods, context);
    if (unserved !== undefined) return `${unserved}, which ${into.requiredMethods!.by.join(" and ")} requires`;
    into.loginType ??= { type: declaration.loginType, by: declaration.name };
  }
  if (declaration.alone) {
    if (context.loginType !== undefined || context.fa) return "decides the verification itself: not beside login_type or fa";
    if (into.loginType !== undefined) return `decides the verification itself: not beside ${into.loginType.by}`;
  }
  if (declaration.methods !== undefined) {
    const before = into.requiredMethods;
    const methods = before === undefined ? [...declaration.methods] : before.methods.filter((m) => declaration.methods!.includes(m));
    if (methods.length === 0) return `requires methods no one login can pass together with ${before!.by.join(" and ")}`;
    const type = context.loginType ?? into.loginType?.type;
    const unserved = type === undefined ? undefined : unservedBy(type, methods, context);
    if (unserved !== undefined) return `requires ${methods.join(" or ")}: ${unserved}`;
    into.requiredMethods = { methods, by: [...(before?.by ?? []), declaration.name] };
  }
  if (declaration.alone) into.alone ??= declaration.name;
  if (declaration.channel) into.channel ??= {};
  return undefined;
}

/** Why `loginType` cannot serve a login that must pass one of `methods`, if it offers none of them. */
function unservedBy(loginType: string, methods: readonly string[] | undefined, context: AcrContext): string | undefined {
  const offered = methods === undefined ? undefined : context.methodsOf?.(loginType);
  if (offered === undefined || methods!.some((m) => offered.includes(m))) return undefined;
  return `the login type ${context.loginType === loginType ? "the request names" : "chosen"} offers none of ${methods!.join(", ")}`;
}

function malformedArgument(declaration: AcrDeclaration, argument: string | undefined): string | undefined {
  if (argument === undefined) return undefined;
  if (declaration.argument === "channel")
    return CHANNEL_ID.test(argument)
      ? undefined
      : `acr_values ${declaration.name}:<channel_id> has a malformed channel id '${shown(argument)}'`;
  const methods = splitMethodList(argument);
  const bad = methods.find((m) => !METHOD_ID.test(m));
  if (bad !== undefined)
    return bad === ""
      ? `acr_values ${declaration.name}:<methods> has an empty method name`
      : `acr_values ${declaration.name} names '${shown(bad)}', which is not a method id`;
  const twice = firstRepeated(methods);
  return twice === undefined ? undefined : `acr_values ${declaration.name} names '${twice}' twice`;
}

/** The argument's contradiction with earlier values or fa, if any; else records it. */
function readArgument(
  declaration: AcrDeclaration,
  argument: string | undefined,
  into: AcrRequirements,
  context: AcrContext,
): string | undefined {
  if (argument === undefined) return undefined;
  if (declaration.argument === "channel") {
    if (into.channel?.id !== undefined && into.channel.id !== argument) return "names another channel than an earlier value";
    into.channel = { id: argument };
    return undefined;
  }
  const methods = splitMethodList(argument);
  if (context.fa) return "chooses methods, which the request's fa already does";
  if (into.methods.length > 0 && into.methods.join(",") !== methods.join(",")) return "names another method list than an earlier value";
  into.methods = methods;
  return undefined;
}

function splitOnce(acr: string): [string, string | undefined] {
  const colon = acr.indexOf(":");
  return colon < 0 ? [acr, undefined] : [acr.slice(0, colon), acr.slice(colon + 1)];
}

function refuse(description: string): AcrParseResult {
  return { ok: false, description };
}
