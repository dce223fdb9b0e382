import type { CrossFieldRule } from "./cross-field-rule.ts";
import { findDuplicates } from "./find-duplicates.ts";

/** Rules on users.yaml: a login name and a subject each identify exactly one person. */
export const USER_RULES: CrossFieldRule[] = [
  {
    file: "users",
    needs: ["users"],
    description: "Usernames are unique, ignoring case (login matches them case-insensitively).",
    check: ({ users }) =>
      findDuplicates(users.users, (u) => u.username.toLowerCase()).map(({ index, firstIndex }) => ({
        file: "users",
        at: ["users", index, "username"],
        message: `duplicate username (same as users[${firstIndex}], ignoring case)`,
        value: users.users[index]!.username,
      })),
  },
  {
    file: "users",
    needs: ["users"],
    description: "Subjects (`sub`) are unique.",
    check: ({ users }) =>
      findDuplicates(users.users, (u) => u.sub).map(({ index, firstIndex, key }) => ({
        file: "users",
        at: ["users", index, "sub"],
        message: `duplicate sub "${key}" (first used by users[${firstIndex}])`,
      })),
  },
];
