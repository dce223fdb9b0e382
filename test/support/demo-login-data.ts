import { readFileSync } from "node:fs";
import { CustomDataSeal } from "../../src/demo/kit/custom-data-seal.ts";
import type { Clock } from "../../src/time/clock.ts";

/** The demo channels.yaml's login_data.signing_key: the file it references, DEMO ONLY. */
export const DEMO_LOGIN_DATA_KEY = readFileSync(new URL("../../config/demo-channel-login-data-key", import.meta.url), "utf8").trim();

/** Seals as the demo channel service's selector page does (at `clock`'s time), or opens what it sealed. */
export const demoLoginDataSeal = (clock?: Clock) => new CustomDataSeal(DEMO_LOGIN_DATA_KEY, clock);

/** The login_data the demo's selector page writes when `sub` chooses `channelId`, sealed now. */
export const demoLoginData = (sub: string, channelId: string) => demoLoginDataSeal().seal(channelId, sub);
