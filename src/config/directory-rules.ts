import type { CrossFieldRule } from "./cross-field-rule.ts";

/** Rules on directory.yaml: one source of employees, and TLS settings that say one thing. */
export const DIRECTORY_RULES: CrossFieldRule[] = [
  {
    file: "directory",
    needs: ["directory"],
    description: "`type: ldap` comes with the `ldap` block that says where the directory is and how people are found.",
    check: ({ directory }) =>
      directory.type === "ldap" && directory.ldap === undefined
        ? [{ file: "directory", at: ["type"], message: "is ldap, but there is no `ldap` block saying where the directory is" }]
        : [],
  },
  {
    file: "users",
    needs: ["users", "directory"],
    description:
      "With an LDAP directory (directory.yaml `type: ldap`), users.yaml lists no users: the employees are the directory's, and a list nobody reads would mislead.",
    check: ({ users, directory }) =>
      directory.type === "ldap" && users.users.length > 0
        ? [
            {
              file: "users",
              at: ["users"],
              message: "directory.yaml chooses an LDAP directory, so users.yaml must list no users (they would never be read)",
            },
          ]
        : [],
  },
  {
    file: "directory",
    needs: ["directory"],
    description: "`start_tls` goes with an ldap:// URL: an ldaps:// connection is TLS from its first byte.",
    check: ({ directory }) =>
      directory.ldap?.start_tls === true && directory.ldap.url.toLowerCase().startsWith("ldaps:")
        ? [{ file: "directory", at: ["ldap", "start_tls"], message: "start_tls needs an ldap:// URL: ldaps:// is TLS already" }]
        : [],
  },
];
