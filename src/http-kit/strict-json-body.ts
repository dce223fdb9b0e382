import express, { type RequestHandler } from "express";
import { JsonBodyError, parseStrictJson } from "./strict-json.ts";

/**
 * express.json's place for the Express routes that read JSON (the trusted app's device API, the methods'
 * routes, the channel service's open interface), parsed by parseStrictJson so a member sent twice is refused. body-parser's
 * raw reader keeps its limit, inflation and errors (413, 415…); a body that is not `application/json`
 * is left alone (req.body stays undefined) for the next parser. `refuse` turns the reason into the
 * route's own 400.
 */
export function strictJsonBody(limit: string | number, refuse: (message: string) => Error): RequestHandler {
  const raw = express.raw({ type: "application/json", limit });
  return (req, res, next) => {
    raw(req, res, (error?: unknown) => {
      if (error !== undefined || !Buffer.isBuffer(req.body)) return next(error);
      try {
        req.body = parseStrictJson(req.body.toString("utf8"));
      } catch (parseError) {
        return next(parseError instanceof JsonBodyError ? refuse(parseError.message) : parseError);
      }
      next();
    });
  };
}
