import autocannon from "autocannon";
import { proofMaker } from "../client-proofs.ts";
import type { LoadJob, LoadResult } from "../load-protocol.ts";
import { Latencies, openWindow } from "../window.ts";

/**
 * The load generator, run pinned to its own core: autocannon's API, a warm-up run that is thrown away,
 * then the recorded run. Latencies are taken from autocannon's `response` events (fractional ms)
 * rather than its histogram, which has 1 ms resolution — too coarse for sub-millisecond endpoints.
 * A request with `proofs` (DPoP, private_key_jwt) is rebuilt before every send with a fresh proof and
 * assertion, signed here on the load generator's core (autocannon's setupRequest).
 * argv[2]: a LoadJob as JSON. Prints one LoadResult as JSON.
 */
const job = JSON.parse(process.argv[2] ?? "") as LoadJob;

const options: autocannon.Options = {
  url: job.url,
  connections: job.connections,
  method: job.request.method,
  ...(job.request.headers ? { headers: job.request.headers } : {}),
  ...(job.request.body !== undefined ? { body: job.request.body } : {}),
  ...(job.request.proofs ? { requests: [{ setupRequest: freshProofs(job.request) }] } : {}),
  timeout: 10,
};

/** autocannon's setupRequest: the request with a new DPoP proof header and client assertion. */
function freshProofs(request: LoadJob["request"]): (req: autocannon.RawRequest) => autocannon.RawRequest {
  const make = proofMaker(request.proofs!);
  const base = request.body ?? "";
  return (req) => {
    const { headers, form } = make();
    const extra = new URLSearchParams(form).toString();
    return { ...req, headers: { ...req.headers, ...headers }, body: extra === "" ? base : `${base}&${extra}` };
  };
}

// Failures during the warm-up count too: a server that fails while warming up is not measured as healthy.
let warmupFailures = 0;
if (job.warmupSeconds > 0) {
  const warm = await autocannon({ ...options, duration: job.warmupSeconds });
  warmupFailures = warm.non2xx + warm.errors + warm.timeouts;
}

const latencies = new Latencies();
const recorded = openWindow(job.serverPid, job.serverCpu);
const instance = autocannon({ ...options, duration: job.durationSeconds });
instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
  if (statusCode >= 200 && statusCode <= 299) latencies.add(responseTime);
});
const result = await instance;
const { wallSeconds: _wall, ...cpu } = recorded.close(latencies.count);

const output: LoadResult = {
  unit: "request",
  connections: job.connections,
  seconds: result.duration,
  ok: result["2xx"],
  reqPerSec: result["2xx"] / result.duration,
  latencyMs: latencies.summary(),
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  warmupFailures,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  ...cpu,
};
process.stdout.write(`${JSON.stringify(output)}\n`);
