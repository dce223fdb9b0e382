/** The scope an \`http\` channel directory's client token carries (channels.yaml; the channel service checks it). */
export const CHANNEL_DIRECTORY_SCOPE = "channel.directory";
