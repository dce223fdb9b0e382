import { CHANNEL_DIRECTORY_SCOPE } from "./reserved-scopes.ts";
import { outboundUrlProblem } from "../delivery/outbound-url.ts";
import type { CrossFieldRule } from "./cross-field-rule.ts";
import { findDuplicates } from "./find-duplicates.ts";
import type { IssueDraft } from "./issue-draft.ts";

/** The rule on the channel list alone; the reference channel-account service checks its own file with it too. */
export const UNIQUE_CHANNELS_RULE: CrossFieldRule = {
  file: "channels",
  needs: ["channels"],
  description:
    "Channel ids are unique (`req_chnl:<id>` and the `chnl` claim name one channel), and a user is listed at most once per channel.",
  check: ({ channels }) => [
    ...findDuplicates(channels.channels, (c) => c.id).map(({ index, firstIndex, key }) => ({
      file: "channels" as const,
      at: ["channels", index, "id"],
      message: `duplicate channel id "${key}" (first used by channels[${firstIndex}])`,
    })),
    ...channels.channels.flatMap((channel, i) =>
      findDuplicates(channel.members, (m) => m.sub).map(({ index, firstIndex, key }) => ({
        file: "channels" as const,
        at: ["channels", i, "members", index, "sub"],
        message: `"${key}" is already a member of this channel (members[${firstIndex}]): one role per user and channel`,
      })),
    ),
  ],
};

/** Rules on channels.yaml, alone and against users.yaml and clients.yaml. */
export const CHANNEL_RULES: CrossFieldRule[] = [
  UNIQUE_CHANNELS_RULE,
  {
    file: "channels",
    needs: ["channels", "users", "directory"],
    description:
      "Every channel member is a user of users.yaml (by `sub`); with an LDAP directory, whose people are not known before it is asked, members are not checked here, and a member the directory does not know never passes the channel check.",
    check: ({ channels, users, directory }) => {
      if (directory.type === "ldap") return [];
      const subs = new Set(users.users.map((u) => u.sub));
      return channels.channels.flatMap((channel, i) =>
        channel.members.flatMap((member, j) =>
          subs.has(member.sub)
            ? []
            : [
                {
                  file: "channels" as const,
                  at: ["channels", i, "members", j, "sub"],
                  message: "is not the sub of a user in users.yaml",
                  value: member.sub,
                },
              ],
        ),
      );
    },
  },
  {
    file: "channels",
    needs: ["channels"],
    description:
      "An `http` directory has a `url` (https, plain http only on loopback) and a `client_id`, and lists no channels of its own (they would be ignored); `url` and `client_id` belong to `http` only.",
    check: ({ channels }) => {
      const { directory } = channels;
      const issues: IssueDraft[] = [];
      if (directory.kind === "embedded") {
        for (const key of ["url", "client_id"] as const) {
          if (directory[key] !== undefined)
            issues.push({ file: "channels", at: ["directory", key], message: "is an http directory setting; directory.kind is embedded" });
        }
        return issues;
      }
      if (directory.url === undefined) issues.push({ file: "channels", at: ["directory"], message: "an http directory needs url" });
      else {
        const problem = outboundUrlProblem(directory.url);
        if (problem) issues.push({ file: "channels", at: ["directory", "url"], message: problem, value: directory.url });
      }
      if (directory.client_id === undefined)
        issues.push({ file: "channels", at: ["directory"], message: "an http directory needs client_id" });
      if (channels.channels.length > 0)
        issues.push({
          file: "channels",
          at: ["channels"],
          message: "lists channels, but directory.kind is http: the service's channels are used and these would be ignored",
        });
      return issues;
    },
  },
  {
    file: "channels",
    needs: ["channels", "clients"],
    description: `An \`http\` directory's \`client_id\` is a client of clients.yaml with the client_credentials grant and the \`${CHANNEL_DIRECTORY_SCOPE}\` scope: the directory calls carry its access token.`,
    check: ({ channels, clients }) => {
      const clientId = channels.directory.kind === "http" ? channels.directory.client_id : undefined;
      if (clientId === undefined) return [];
      const client = clients.clients.find((c) => c.client_id === clientId);
      const at = ["directory", "client_id"];
      if (!client) return [{ file: "channels", at, message: "is not a client in clients.yaml", value: clientId }];
      if (!client.grant_types.includes("client_credentials"))
        return [{ file: "channels", at, message: "names a client without the client_credentials grant", value: clientId }];
      if (!client.allowed_scopes.includes(CHANNEL_DIRECTORY_SCOPE))
        return [{ file: "channels", at, message: `names a client not allowed the ${CHANNEL_DIRECTORY_SCOPE} scope`, value: clientId }];
      return [];
    },
  },
];
