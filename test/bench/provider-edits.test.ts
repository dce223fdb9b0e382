import { describe, expect, it } from "vitest";
import { BenchError } from "../../bench/bench-error.ts";
import { editsFromEnv } from "../../bench/provider-edits.ts";

describe("BENCH_PROVIDER_EDITS", () => {
  it("reads a JSON object of dotted provider.yaml paths", () => {
    expect(editsFromEnv('{"logging.requests":false,"audit.destination":"stderr"}')).toEqual({
      "logging.requests": false,
      "audit.destination": "stderr",
    });
  });

  it("is nothing when unset or blank", () => {
    expect(editsFromEnv(undefined)).toEqual({});
    expect(editsFromEnv("  ")).toEqual({});
  });

  it("refuses what is not a JSON object, in one line naming the variable", () => {
    expect(() => editsFromEnv("logging.requests=false")).toThrow(
      new BenchError("BENCH_PROVIDER_EDITS is not JSON: logging.requests=false"),
    );
    for (const text of ["[1]", "null", "3"])
      expect(() => editsFromEnv(text)).toThrow(/^BENCH_PROVIDER_EDITS must be a JSON object of dotted provider\.yaml paths/);
  });
});
