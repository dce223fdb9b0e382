import type { RequestHandler } from "express";
import type { Provider } from "../../provider.ts";
import { discoveryDocument } from "./discovery-document.ts";
import { sendJson } from "../send-json.ts";

// Relying parties poll these; a short public cache is safe because new keys are announced a day ahead.
const CACHE = "public, max-age=300";

/** GET /.well-known/openid-configuration — built once per provider. */
export function discoveryEndpoint(provider: Provider): RequestHandler {
  const body = JSON.stringify(discoveryDocument(provider));
  return (_req, res) => {
    res.setHeader("Cache-Control", CACHE);
    sendJson(res, 200, body, true);
  };
}

/** GET /.well-known/openid-configuration/jwks — the public keys only, serialised once per key set. */
export function jwksEndpoint(provider: Provider): RequestHandler {
  return (_req, res) => {
    res.setHeader("Cache-Control", CACHE);
    sendJson(res, 200, provider.keys.keys.jwksJson, true);
  };
}
