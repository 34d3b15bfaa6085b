import { ONE_DECIMAL, sayLevel } from "~/domain/seller-vocabulary";
import type { Criterion, Requirement, SellerLevel } from "~/domain/seller-levels";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";

/** Each criterion's name (namespace `dashboard`). */
const CRITERION_LABEL: Record<Criterion, string> = {
  accountAge: "dashboard.levels.accountAge",
  completedOrders: "dashboard.levels.completedOrders",
  earned: "dashboard.levels.earned",
  rating: "dashboard.levels.rating",
  onTime: "dashboard.levels.onTime",
  response: "dashboard.levels.response",
  completion: "dashboard.levels.completion",
};

const PERCENT: Intl.NumberFormatOptions = { style: "percent", maximumFractionDigits: 0 };

/**
 * The seller's level on their dashboard (ADR 049): the level they hold and, for the next one, what they have
 * and what it needs, criterion by criterion.
 */
export function LevelPanel({ progress }: { progress: { level: SellerLevel; next: SellerLevel | null; requirements: Requirement[] } }) {
  const { t } = useT();
  const { ugx, number } = usePreferences();
  const say = (criterion: Criterion, value: number | null): string => {
    if (value === null) return t("dashboard.levels.notMeasured");
    if (criterion === "accountAge") return t("dashboard.levels.days", { count: value });
    if (criterion === "earned") return ugx(value);
    if (criterion === "rating") return number(value, ONE_DECIMAL);
    if (criterion === "completedOrders") return number(value);
    return number(value, PERCENT);
  };
  const missing = progress.requirements.filter((r) => !r.met).length;
  return (
    <section aria-labelledby="level-title" className="level-panel">
      <h2 id="level-title">{t("dashboard.levels.title")}</h2>
      <p>
        {t("dashboard.levels.current")} <strong className="status-badge">{sayLevel(t, progress.level)}</strong>
      </p>
      {progress.next ? (
        <>
          <p>
            {missing
              ? t("dashboard.levels.toNext", { level: sayLevel(t, progress.next), count: missing })
              : t("dashboard.levels.readyNext", { level: sayLevel(t, progress.next) })}
          </p>
          <ul className="plain-list level-criteria" aria-label={t("dashboard.levels.criteria", { level: sayLevel(t, progress.next) })}>
            {progress.requirements.map((r) => (
              <li key={r.criterion} className={r.met ? "met" : "unmet"}>
                <span>{t(CRITERION_LABEL[r.criterion])}</span>
                <span>
                  {t("dashboard.levels.haveNeed", { have: say(r.criterion, r.have), need: say(r.criterion, r.need) })}{" "}
                  <span className="status-badge">{r.met ? t("dashboard.levels.met") : t("dashboard.levels.unmet")}</span>
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>{t("dashboard.levels.top")}</p>
      )}
      <p className="field-hint">{t("dashboard.levels.when")}</p>
    </section>
  );
}
