/**
 * A custom login's state split at its FIRST `|` (SPEC: the phone side gets `<session_id>|<MobileState>`,
 * the PC side `<data>|<PCState>`; channelinfo's login_data is "taken from before |"). Everything after
 * that bar is the other half byte for byte, bars included; without a bar the second half is undefined.
 */
export function splitState(state: string): [string, string | undefined] {
  const bar = state.indexOf("|");
  return bar < 0 ? [state, undefined] : [state.slice(0, bar), state.slice(bar + 1)];
}
