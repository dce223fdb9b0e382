import type { Enrollment } from "../enrollments/enrollments.ts";
import type { Provider } from "../provider.ts";
import type { Lang } from "../views/lang.ts";
import type { ViewEngine } from "../views/view-engine.ts";
import { formatDate, type ShownDate } from "./format-date.ts";
import type { EnrolledItem, SetUpBy } from "./method-account-view.ts";

/** One factor method on the account page (AccountPageData.methods). */
export interface AccountRow {
  id: string;
  labelKey: string;
  setUp: boolean;
  /** What is enrolled: devices, keys, a masked number or address, each with when it was added. */
  items: { text: string; addedAt?: ShownDate }[];
  enrolledAt?: ShownDate;
  lastUsedAt?: ShownDate;
  /** Where a method without an enrollment flow of its own is set up (translated). */
  setUpNote?: string;
  /** The user can set it up here (again, or one more device). */
  canEnroll: boolean;
  /** The user can remove it here. */
  canRemove: boolean;
  /** Enrolling again adds one more (a phone, a key) instead of replacing what is there. */
  addsAnother: boolean;
}

/**
 * Every configured factor method for one user, in config order: whether it is set up, what is
 * enrolled (as its plugin describes it, masked), when it was set up and last used, and what the user
 * can do about it here. Methods without an enrollment flow say where they are set up instead.
 */
export async function accountRows(provider: Provider, views: ViewEngine, sub: string, lang: Lang): Promise<AccountRow[]> {
  const rows: AccountRow[] = [];
  for (const [id, { plugin }] of provider.methods) {
    const setUpBy = plugin.account?.setUpBy;
    // A method set up with another's enrollment shows that method's record (its devices, its dates).
    const recordOf = typeof setUpBy === "object" ? setUpBy.method : id;
    const record = await provider.enrollments.get(recordOf, sub);
    const described = record ? describedItems(provider, recordOf, record) : [];
    const used = await provider.enrollments.lastUsed(id, sub);
    const lastUsed = Math.max(used ?? 0, ...described.map((i) => i.lastUsedAt ?? 0));
    const setUp = setUpBy === "directory" ? provider.users.findBySub(sub)?.password_hash !== undefined : record !== undefined && (described.length > 0 || !hasItems(provider, recordOf));
    const own = plugin.enrollment !== undefined && setUpBy === undefined;
    rows.push({
      id,
      labelKey: `method.${id}.label`,
      setUp,
      items: setUp ? described.map((item) => ({ text: itemText(views, lang, item), addedAt: item.addedAt === undefined ? undefined : formatDate(item.addedAt, lang) })) : [],
      enrolledAt: setUp && record ? formatDate(record.createdAt, lang) : undefined,
      lastUsedAt: lastUsed > 0 ? formatDate(lastUsed, lang) : undefined,
      setUpNote: setUpBy === undefined ? undefined : noteOf(provider, views, lang, setUpBy),
      canEnroll: own,
      canRemove: own && setUp,
      addsAnother: plugin.account?.several === true,
    });
  }
  return rows;
}

const hasItems = (provider: Provider, method: string) => provider.methods.get(method)?.plugin.account?.items !== undefined;

function describedItems(provider: Provider, method: string, record: Enrollment): EnrolledItem[] {
  return provider.methods.get(method)?.plugin.account?.items?.(record.data) ?? [];
}

function itemText(views: ViewEngine, lang: Lang, item: EnrolledItem): string {
  return item.textKey === undefined ? (item.text ?? "") : views.translate(lang, item.textKey, item.params);
}

function noteOf(provider: Provider, views: ViewEngine, lang: Lang, setUpBy: SetUpBy): string {
  // Without the method it shares a record with, only an operator can set it up.
  if (typeof setUpBy === "object" && !provider.methods.has(setUpBy.method)) return views.translate(lang, "account.setup_administrator");
  if (typeof setUpBy === "object") return views.translate(lang, "account.setup_with", { method: views.translate(lang, `method.${setUpBy.method}.label`) });
  return views.translate(lang, setUpBy === "directory" ? "account.setup_directory" : "account.setup_administrator");
}
