/** Milliseconds since the epoch. Injected everywhere time matters, so tests can freeze and move it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const epochSeconds = (clock: Clock): number => Math.floor(clock() / 1000);
