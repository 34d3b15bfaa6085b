import { useT } from "~/i18n/react";
import type { SmsTotals } from "~/models/sms.server";

/**
 * The pipeline screen's texts (ADR 050): sent, failed, refused and held today and over 7 days, and what the
 * sent ones cost as the gateway reported it, per currency.
 */
export function SmsTotalsTable({ today, week }: { today: SmsTotals; week: SmsTotals }) {
  const { t } = useT();
  const cost = (totals: SmsTotals) => (totals.costs.length ? totals.costs.map((c) => `${c.currency} ${Number(c.amount).toFixed(2)}`).join(", ") : "—");
  const rows: [string, (s: SmsTotals) => string | number][] = [
    ["admin.sms.sent", (s) => s.sent],
    ["admin.sms.cost", cost],
    ["admin.sms.failed", (s) => s.failed],
    ["admin.sms.refused", (s) => s.refused],
    ["admin.sms.held", (s) => s.held],
  ];
  return (
    <table className="admin-table" aria-labelledby="sms-title">
      <thead>
        <tr>
          <th scope="col">{t("admin.sms.what")}</th>
          <th scope="col">{t("admin.sms.today")}</th>
          <th scope="col">{t("admin.sms.week")}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{t(key)}</th>
            <td>{value(today)}</td>
            <td>{value(week)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
