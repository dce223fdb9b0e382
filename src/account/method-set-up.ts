import type { Enrollment, Enrollments } from "../enrollments/enrollments.ts";
import type { EnrolledItem } from "../plugin-contract/method-account-view.ts";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";
import type { UserDirectory } from "../users/user-directory.ts";

/** What deciding whether a user has set a method up reads: the methods' account views, their enrollments, the directory (for passwords). */
export interface SetUpServices {
  readonly methods: ReadonlyMap<string, { readonly plugin: Pick<FactorPlugin, "account" | "manifest"> }>;
  readonly enrollments: Pick<Enrollments, "get">;
  readonly users: Pick<UserDirectory, "findBySub">;
}

/** One method's state for one user: whether it is set up, and the enrollment record it reads (its own, or the one it shares). */
export interface MethodSetUp {
  setUp: boolean;
  /** The method whose record counts (the trusted app's dynamic code uses the phones qrcode enrolled). */
  recordOf: string;
  record?: Enrollment;
  /** The record's items as the plugin lists them (devices, keys). */
  items: EnrolledItem[];
}

/**
 * Whether `sub` has set method `id` up, as the account page shows it and `portcullis policy explain
 * --user` reports it: a password is set up in the directory; a method that shares another's record
 * (appotp: qrcode's phones) reads that one; a record whose plugin lists items counts only with one.
 */
export async function methodSetUp(services: SetUpServices, id: string, sub: string): Promise<MethodSetUp> {
  const setUpBy = services.methods.get(id)?.plugin.account?.setUpBy;
  const recordOf = typeof setUpBy === "object" ? setUpBy.method : id;
  const record = await services.enrollments.get(recordOf, sub);
  const lister = services.methods.get(recordOf)?.plugin.account?.items;
  const items = record && lister ? lister(record.data) : [];
  const setUp =
    setUpBy === "directory"
      ? (await services.users.findBySub(sub))?.hasPassword === true
      : record !== undefined && (items.length > 0 || lister === undefined);
  return { setUp, recordOf, ...(record && { record }), items };
}
