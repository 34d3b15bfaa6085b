import type { TrustBadges as Badges } from "~/domain/trust";
import { useT } from "~/i18n/react";

/** "Vetted", "Email verified", "Phone verified": the badges a member has (ADR 051), as a list; nothing when none. */
export function TrustBadges({ badges }: { badges: Badges }) {
  const { t } = useT();
  const shown = [
    badges.vetted ? ["vetted", t("catalog.vetted.badge")] : null,
    badges.emailVerified ? ["email", t("catalog.verify.emailBadge")] : null,
    badges.phoneVerified ? ["phone", t("catalog.verify.phoneBadge")] : null,
  ].filter((b): b is string[] => b !== null);
  if (shown.length === 0) return null;
  return (
    <ul className="trust-badges" aria-label={t("catalog.verify.badges")}>
      {shown.map(([kind, label]) => (
        <li key={kind} className={`trust-badge trust-${kind}`}>
          {label}
        </li>
      ))}
    </ul>
  );
}
