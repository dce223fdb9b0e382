import type { CrossFieldRule } from "./cross-field-rule.ts";

/** Rules on how the provider runs: worker processes and the metrics endpoint. */
export const OPERATIONS_RULES: CrossFieldRule[] = [
  {
    file: "provider",
    needs: ["provider"],
    description:
      "`listen.workers` above 1 (or `auto`) needs a Redis or PostgreSQL store: the embedded store lives in one process's memory and holds a lock on its directory, so a second worker could neither open it nor see the first one's codes and sessions.",
    check: ({ provider }) =>
      provider.store.url === "embedded" && provider.listen.workers !== 1
        ? [
            {
              file: "provider",
              at: ["listen", "workers"],
              message:
                "several workers need a shared store: the embedded store belongs to one process (its records live in that process's memory, its directory is locked), so workers would not see each other's codes and sessions; set store.url to a Redis or PostgreSQL URL, or listen.workers to 1",
              value: provider.listen.workers,
            },
          ]
        : [],
  },
  {
    file: "provider",
    needs: ["provider"],
    description: "A `metrics` section names where metrics are served: a separate `listen` address, a `token` for the main port, or both.",
    check: ({ provider }) =>
      provider.metrics && provider.metrics.listen === undefined && provider.metrics.token === undefined
        ? [
            {
              file: "provider",
              at: ["metrics"],
              message:
                "give metrics.listen (a separate address, e.g. 127.0.0.1:9464) or metrics.token (a bearer token for /metrics on the main port), or remove the section",
            },
          ]
        : [],
  },
  {
    file: "provider",
    needs: ["provider"],
    description: "With several workers, metrics are served on `metrics.listen` by the primary, which gathers every worker's.",
    check: ({ provider }) =>
      provider.metrics && provider.metrics.listen === undefined && provider.listen.workers !== 1
        ? [
            {
              file: "provider",
              at: ["metrics"],
              message:
                "with several workers, set metrics.listen: the primary process serves the metrics of all workers there (one worker on the main port would only know its own)",
            },
          ]
        : [],
  },
];
