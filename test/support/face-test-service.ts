/**
 * A face service on loopback (node:http) for tests of the face method: it records each verification
 * request (parsed JSON) and answers as told — a verdict, an HTTP error, garbage, or nothing for a while.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface FaceRequest {
  headers: IncomingHttpHeaders;
  body: { sub?: string; image?: string; reference?: string };
}

export type FaceServiceBehaviour =
  | { kind: "answer"; result: string; key: string }
  | { kind: "status"; status: number; body?: string }
  | { kind: "raw"; body: string }
  | { kind: "hang"; ms: number };

export interface FaceTestService {
  /** The verification URL. */
  url: string;
  requests: FaceRequest[];
  behaviour: FaceServiceBehaviour;
  close(): Promise<void>;
}

export async function startFaceTestService(): Promise<FaceTestService> {
  const requests: FaceRequest[] = [];
  const state: { behaviour: FaceServiceBehaviour } = { behaviour: { kind: "answer", result: "match", key: "face-key-1" } };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: FaceRequest["body"] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as FaceRequest["body"];
      } catch {
        // recorded as empty
      }
      requests.push({ headers: req.headers, body });
      const behaviour = state.behaviour;
      if (behaviour.kind === "answer") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ result: behaviour.result, key: behaviour.key }));
      }
      if (behaviour.kind === "status") {
        res.writeHead(behaviour.status, { "content-type": "text/plain" });
        return void res.end(behaviour.body ?? "internal error at face-engine.internal:9000 (model v3)");
      }
      if (behaviour.kind === "raw") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(behaviour.body);
      }
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ result: "match", key: "too-late" }));
      }, behaviour.ms);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/verify`,
    requests,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: FaceServiceBehaviour) {
      state.behaviour = value;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
