/**
 * The request line is built by hand for speed (src/http-kit/request-log.ts requestLines): it must be
 * exactly what pino writes for `logger.info({ reqId, method, path, status, ms }, "request")`, on the
 * same stream, with the same level check.
 */
import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/logging/create-logger.ts";
import { requestLines } from "../../src/http-kit/request-log.ts";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write: (chunk, _encoding, done) => {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream: stream as unknown as { write(line: string): void } };
}

afterEach(() => vi.useRealTimers());

describe("the request line", () => {
  const requests: Array<[string, string | undefined, string, number, number]> = [
    ["aB3-x.y_z", "POST", "/connect/token", 200, 2.69],
    ["r-1", "GET", '/odd/"quoted"\\back\tslash\u0001/é', 404, 0],
    ["r-2", undefined, "/", 500, 1234.5],
  ];

  it.each(requests)("is byte for byte pino's line (%s %s %s)", (reqId, method, path, status, ms) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T12:00:00.123Z"));
    const ours = capture();
    const theirs = capture();
    requestLines(createLogger("info", ours.stream)).write(reqId, method, path, status, ms);
    createLogger("info", theirs.stream).info({ reqId, method, path, status, ms }, "request");
    expect(ours.lines).toHaveLength(1);
    expect(ours.lines).toEqual(theirs.lines);
    expect(JSON.parse(ours.lines[0]!)).toMatchObject({
      level: 30,
      time: Date.parse("2026-11-26T12:00:00.123Z"),
      service: "portcullis",
      reqId,
      path,
      status,
      ms,
      msg: "request",
    });
  });

  it("follows the logger's level: nothing below info's", () => {
    const out = capture();
    const logger = createLogger("warn", out.stream);
    const lines = requestLines(logger);
    lines.write("r", "GET", "/", 200, 1);
    expect(out.lines).toEqual([]);
    logger.level = "info";
    lines.write("r", "GET", "/", 200, 1);
    expect(out.lines).toHaveLength(1);
  });
});
