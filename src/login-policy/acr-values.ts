import { firstRepeated, shown, splitMethodList } from "./method-list.ts";

/**
 * The spec's `acr_values` (v1.0 of its reference table) read into what they require of a login.
 *
 * Values are space-separated and may be combined. The spec's own values are read strictly (a
 * malformed one is a clear invalid_request, never a weaker login); any other value is voluntary
 * (OIDC Core §3.1.2.1) and kept, unacted on. Syntax only: whether a named method exists or may be
 * used here is the login plan's question (plan-login.ts), which also has the other parameters.
 */
export interface AcrRequirements {
  /** `2fa` or `2fa:<methods>`: a method of each class. */
  twoFactor: boolean;
  /** The methods `2fa:<methods>` names, in the order they are offered; empty when none are named. */
  methods: string[];
  /** `must_bfido`: the trusted app's FIDO2 credential over the hybrid QR transport. */
  mustBfido: boolean;
  /** `req_chnl` (any channel the user administers) or `req_chnl:<id>` (that channel). */
  channel?: { id?: string };
  /** `chnl_info`: the ID token gets chnl_name and chnl_icon (implies req_chnl: a channel must be known). */
  channelInfo: boolean;
  /** `app_gps`: the trusted app's signed position goes into the ID token. */
  gps: boolean;
  /** `app_faceid`: the trusted app's face check goes into the ID token. */
  faceid: boolean;
  /** Values that are not the spec's: voluntary, kept as sent. */
  voluntary: string[];
}

export type AcrParseResult = { ok: true; requirements: AcrRequirements } | { ok: false; description: string };

/** At most this many values: each costs work, and no real request needs more. */
export const MAX_ACR_VALUES = 16;

const METHOD_ID = /^[a-z][a-z0-9_]{0,31}$/;
const CHANNEL_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const FLAGS = { must_bfido: "mustBfido", chnl_info: "channelInfo", app_gps: "gps", app_faceid: "faceid" } as const;

/** Reads `acr_values` (undefined or empty: no requirement). Never throws. */
export function parseAcrValues(value: string | undefined): AcrParseResult {
  const requirements: AcrRequirements = { twoFactor: false, methods: [], mustBfido: false, channelInfo: false, gps: false, faceid: false, voluntary: [] };
  const values = (value ?? "").split(" ").filter((v) => v !== "");
  if (values.length > MAX_ACR_VALUES) return refuse(`acr_values has more than ${MAX_ACR_VALUES} values`);
  for (const acr of values) {
    const problem = readValue(acr, requirements);
    if (problem !== undefined) return refuse(problem);
  }
  if (requirements.channelInfo && requirements.channel === undefined) requirements.channel = {};
  if (requirements.mustBfido && requirements.twoFactor) return refuse("acr_values must_bfido cannot be combined with 2fa: it decides the verification itself");
  return { ok: true, requirements };
}

/** Adds one value to `into`; the problem with it, if any. */
function readValue(acr: string, into: AcrRequirements): string | undefined {
  if (acr in FLAGS) {
    into[FLAGS[acr as keyof typeof FLAGS]] = true;
    return undefined;
  }
  const [name, argument] = splitOnce(acr);
  if (name === "2fa") return readTwoFactor(argument, into);
  if (name === "req_chnl") return readChannel(argument, into);
  into.voluntary.push(acr);
  return undefined;
}

function readTwoFactor(argument: string | undefined, into: AcrRequirements): string | undefined {
  into.twoFactor = true;
  if (argument === undefined) return undefined;
  const methods = splitMethodList(argument);
  const bad = methods.find((m) => !METHOD_ID.test(m));
  if (bad !== undefined) return bad === "" ? "acr_values 2fa:<methods> has an empty method name" : `acr_values 2fa names '${shown(bad)}', which is not a method id`;
  const twice = firstRepeated(methods);
  if (twice !== undefined) return `acr_values 2fa names '${twice}' twice`;
  if (into.methods.length > 0 && into.methods.join(",") !== methods.join(",")) return "acr_values names two different 2fa method lists";
  into.methods = methods;
  return undefined;
}

function readChannel(argument: string | undefined, into: AcrRequirements): string | undefined {
  if (argument === undefined) {
    into.channel ??= {};
    return undefined;
  }
  if (!CHANNEL_ID.test(argument)) return `acr_values req_chnl:<channel_id> has a malformed channel id '${shown(argument)}'`;
  if (into.channel?.id !== undefined && into.channel.id !== argument) return "acr_values names two different channels (req_chnl:<id>)";
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
