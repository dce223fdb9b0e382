import type { Enrollments } from "../enrollments/enrollments.ts";
import { methodSetUp } from "./method-set-up.ts";
import type { UserDirectory } from "../users/user-directory.ts";
import type { FactorPlugin } from "../plugin-contract/factor-plugin.ts";
import type { Lang } from "../i18n/lang.ts";
import type { ViewEngine } from "../views/view-engine.ts";
import { formatDate } from "../views/format-date.ts";
import type { AccountRow } from "../views/page-data.ts";
import type { EnrolledItem, SetUpBy } from "../plugin-contract/method-account-view.ts";

/** What the account page reads: the configured methods, their enrollments and the directory (for passwords). */
export interface AccountServices {
  readonly methods: ReadonlyMap<string, { readonly plugin: Pick<FactorPlugin, "account" | "manifest"> }>;
  readonly enrollments: Enrollments;
  readonly users: Pick<UserDirectory, "findBySub">;
}

/**
 * Every configured factor method for one user, in config order: whether it is set up, what is
 * enrolled (as its plugin describes it, masked), when it was set up and last used, and what the user
 * can do about it here. Methods without an enrollment flow say where they are set up instead.
 */
export async function accountRows(provider: AccountServices, views: ViewEngine, sub: string, lang: Lang): Promise<AccountRow[]> {
  const rows: AccountRow[] = [];
  for (const [id, { plugin }] of provider.methods) {
    const setUpBy = plugin.account?.setUpBy;
    // A method set up with another's enrollment shows that method's record (its devices, its dates).
    const { setUp, record, items: described } = await methodSetUp(provider, id, sub);
    const used = await provider.enrollments.lastUsed(id, sub);
    const lastUsed = Math.max(used ?? 0, ...described.map((i) => i.lastUsedAt ?? 0));
    const own = plugin.manifest.machines.enrollment !== undefined && setUpBy === undefined;
    rows.push({
      id,
      labelKey: `method.${id}.label`,
      setUp,
      items: setUp
        ? described.map((item) => ({
            text: itemText(views, lang, item),
            addedAt: item.addedAt === undefined ? undefined : formatDate(item.addedAt, lang),
          }))
        : [],
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

function itemText(views: ViewEngine, lang: Lang, item: EnrolledItem): string {
  return item.textKey === undefined ? (item.text ?? "") : views.translate(lang, item.textKey, item.params);
}

function noteOf(provider: AccountServices, views: ViewEngine, lang: Lang, setUpBy: SetUpBy): string {
  // Without the method it shares a record with, only an operator can set it up.
  if (typeof setUpBy === "object" && !provider.methods.has(setUpBy.method)) return views.translate(lang, "account.setup_administrator");
  if (typeof setUpBy === "object")
    return views.translate(lang, "account.setup_with", { method: views.translate(lang, `method.${setUpBy.method}.label`) });
  return views.translate(
    lang,
    setUpBy === "directory" ? "account.setup_directory" : setUpBy === "app" ? "account.setup_app" : "account.setup_administrator",
  );
}
