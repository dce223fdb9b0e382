/**
 * toOAuthError: which thrown values are client mistakes (and how they are described), and which are
 * the provider's own failures.
 */
import type { AddressInfo } from "node:net";
import express, { type ErrorRequestHandler } from "express";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { toOAuthError } from "../../src/http-kit/write-error.ts";

const logger = pino({ level: "silent" });
const context = { reqId: "test", path: "/x" };

/** What Express's router throws for `path` on a route with a parameter, caught by an error handler. */
async function routerError(path: string): Promise<unknown> {
  const app = express();
  let caught: unknown;
  app.get("/items/:id", (_req, res) => void res.end());
  app.use(((err, _req, res, _next) => {
    caught = err;
    res.end();
  }) as ErrorRequestHandler);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`)).text();
  } finally {
    server.close();
  }
  return caught;
}

describe("toOAuthError", () => {
  it("says the path is at fault when a path parameter is not percent-encoded UTF-8", async () => {
    const err = await routerError("/items/%zz%C3%28");
    const oauth = toOAuthError(err, logger, context);
    expect({ status: oauth.status, error: oauth.error, description: oauth.description }).toEqual({
      status: 400,
      error: "invalid_request",
      description: "the request path is not valid percent-encoded UTF-8",
    });
  });

  it("still describes a body-parser refusal as an unreadable body", () => {
    const oauth = toOAuthError(
      Object.assign(new SyntaxError("Unexpected end of JSON input"), { status: 400, type: "entity.parse.failed" }),
      logger,
      context,
    );
    expect({ status: oauth.status, description: oauth.description }).toEqual({
      status: 400,
      description: "the request body cannot be read",
    });
  });

  it("answers any other URIError, one of our own code, as a server error", () => {
    expect(toOAuthError(new URIError("URI malformed"), logger, context).status).toBe(500);
  });
});
