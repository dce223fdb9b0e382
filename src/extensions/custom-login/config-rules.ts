import { CUSTOM_SCAN_SCOPE, findDuplicates, type CrossFieldRule, type IssueDraft } from "../../plugin-contract/declaration.ts";

/** Rules on custom-login.yaml against clients.yaml. */
export const CUSTOM_LOGIN_RULES: CrossFieldRule[] = [
  {
    file: "custom_login",
    needs: ["custom_login", "clients"],
    description: `Each custom-login client is a client of clients.yaml, listed once, with the authorization_code grant and the scope \`${CUSTOM_SCAN_SCOPE}\` (the phone side's token needs it to write the status); its \`own_scopes\` are among its allowed_scopes.`,
    check: ({ custom_login, clients }) => {
      const byId = new Map(clients.clients.map((c) => [c.client_id, c]));
      const issues: IssueDraft[] = findDuplicates(custom_login.clients, (c) => c.client_id).map(({ index, firstIndex, key }) => ({
        file: "custom_login" as const,
        at: ["clients", index, "client_id"],
        message: `"${key}" is listed already (clients[${firstIndex}])`,
      }));
      custom_login.clients.forEach((entry, i) => {
        const client = byId.get(entry.client_id);
        if (!client)
          return void issues.push({
            file: "custom_login",
            at: ["clients", i, "client_id"],
            message: "is not a client of clients.yaml",
            value: entry.client_id,
          });
        if (!client.grant_types.includes("authorization_code"))
          issues.push({
            file: "custom_login",
            at: ["clients", i, "client_id"],
            message: "needs the authorization_code grant (clients.yaml)",
            value: entry.client_id,
          });
        if (!client.allowed_scopes.includes(CUSTOM_SCAN_SCOPE))
          issues.push({
            file: "custom_login",
            at: ["clients", i, "client_id"],
            message: `needs the scope ${CUSTOM_SCAN_SCOPE} in its allowed_scopes (clients.yaml)`,
            value: entry.client_id,
          });
        entry.own_scopes.forEach((scope, j) => {
          if (!client.allowed_scopes.includes(scope))
            issues.push({
              file: "custom_login",
              at: ["clients", i, "own_scopes", j],
              message: `is not among ${entry.client_id}'s allowed_scopes`,
              value: scope,
            });
        });
      });
      return issues;
    },
  },
];
