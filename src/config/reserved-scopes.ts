/** The scope an \`http\` channel directory's client token carries (channels.yaml; the channel service checks it). */
export const CHANNEL_DIRECTORY_SCOPE = "channel.directory";

/** The scope the phone side of a custom QR-code login needs (SPEC: MobileScope; the write-status token must carry it). */
export const CUSTOM_SCAN_SCOPE = "acme.ext.custom_scan";
