/** A failure with a clear cause (no taskset, provider did not start, preflight failed): reported without a stack. */
export class BenchError extends Error {}
