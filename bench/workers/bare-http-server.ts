import { createServer } from "node:http";
import { serveOnLoopback } from "./loopback-server.ts";

/**
 * The node:http floor: the least a Node HTTP server can do per request — a fixed small JSON body,
 * no framework, no logging. Listens on a free loopback port, prints `{"port":N}` and serves until killed.
 */
const BODY = JSON.stringify({ status: "ok", service: "bare-node-http", note: "floor for the Portcullis bench" });
const LENGTH = String(Buffer.byteLength(BODY));

serveOnLoopback(
  createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": LENGTH });
    res.end(BODY);
  }),
);
