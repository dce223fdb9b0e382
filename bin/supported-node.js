// Which Node.js lines Portcullis runs on, checked before anything else is loaded so that an
// unsupported runtime gets one clear line instead of a stack trace from deep inside a dependency.
// Plain JavaScript that any Node version can parse; package.json's "engines" says the same.

/**
 * The LTS lines the project is tested on (.ci/run runs the suite on each), with their minimum: the first
 * release of the line that runs TypeScript files without a flag (bin/portcullis.js loads the sources as they are).
 */
export const SUPPORTED_LINES = [
  { major: 24, minimum: "24.0.0" },
  { major: 22, minimum: "22.18.0" },
];

/**
 * What to do on Node `version` (e.g. "24.21.0"): run, run with a warning (a newer line the project
 * has not been tested on), or refuse with a message.
 * @returns {{ verdict: "run" } | { verdict: "warn" | "refuse", message: string }}
 */
export function checkNodeVersion(version) {
  const supported = SUPPORTED_LINES.map((line) => line.major).join(" or ");
  const parts = version.replace(/^v/, "").split(".").map(Number);
  const [major = 0] = parts;
  const line = SUPPORTED_LINES.find((candidate) => candidate.major === major);
  if (line) {
    if (compare(parts, line.minimum.split(".").map(Number)) >= 0) return { verdict: "run" };
    return {
      verdict: "refuse",
      message: `Portcullis needs Node.js ${line.minimum} or later on the ${major}.x line; this is ${version}. Upgrade Node.js (${supported} LTS).`,
    };
  }
  const newest = Math.max(...SUPPORTED_LINES.map((candidate) => candidate.major));
  if (major > newest)
    return { verdict: "warn", message: `Portcullis is tested on Node.js ${supported} LTS; ${version} is newer and untested.` };
  return {
    verdict: "refuse",
    message: `Portcullis does not run on Node.js ${version}: use Node.js ${supported} LTS (older lines are past their end of life or untested).`,
  };
}

function compare(a, b) {
  for (let i = 0; i < 3; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
