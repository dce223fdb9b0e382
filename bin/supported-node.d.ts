// Types for supported-node.js, which stays plain JavaScript so that any Node version can run it.
export declare const SUPPORTED_LINES: readonly { major: number; minimum: string }[];
export type NodeVersionCheck = { verdict: "run" } | { verdict: "warn" | "refuse"; message: string };
export declare function checkNodeVersion(version: string): NodeVersionCheck;
