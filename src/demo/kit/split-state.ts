/**
 * The two halves of a custom login's state. The phone side gets `<session_id>|<MobileState>`: the
 * session id never holds a bar, so it ends at the FIRST one (`splitPhoneState`). The PC side gets
 * `<data>|<PCState>`: the data is the phone's, handed over unchanged and free to hold bars, while
 * PCState is the site's own, which it keeps free of bars — so the data ends at the LAST one
 * (`splitPcState`). Without a bar the second half is undefined.
 */
export function splitPhoneState(state: string): [string, string | undefined] {
  return splitAt(state, state.indexOf("|"));
}

export function splitPcState(state: string): [string, string | undefined] {
  return splitAt(state, state.lastIndexOf("|"));
}

function splitAt(state: string, bar: number): [string, string | undefined] {
  return bar < 0 ? [state, undefined] : [state.slice(0, bar), state.slice(bar + 1)];
}
