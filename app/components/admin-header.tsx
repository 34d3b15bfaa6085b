import { useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { LanguageSwitch } from "~/components/language-switch";
import { Link, NavLink } from "~/components/link";
import { SignOutButton, type HeaderUser } from "~/components/site-header";
import { useT } from "~/i18n/react";

const SCREENS: [string, string][] = [
  ["/users", "common.adminHeader.users"],
  ["/messages", "common.adminHeader.messages"],
  ["/analytics", "common.adminHeader.analytics"],
  ["/disputes", "common.adminHeader.disputes"],
  ["/reviews", "common.reviewReplies.adminNav"],
  ["/pipeline", "common.adminHeader.pipeline"],
  ["/rates", "common.adminHeader.rates"],
  ["/categories", "common.adminHeader.categories"],
  ["/audit", "common.adminHeader.audit"],
];

/**
 * The admin portal's header: its own brand line, its screens, the language switch, and a way back to the main
 * site (another origin). An admin's links are listed twice: in a row on wide screens, and behind a "Menu"
 * `<details>` on phones (it opens without JavaScript); CSS shows one of the two, so only one is ever in the
 * accessibility tree.
 */
export function AdminHeader({ mainSiteUrl, user }: { mainSiteUrl: string; user: HeaderUser }) {
  const { t } = useT();
  const admin = user?.role === "admin";
  return (
    <header className="site-header admin-header">
      <div className="container header-row">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko <span className="brand-tag">{t("common.adminHeader.tag")}</span>
          <span className="visually-hidden"> {t("common.adminHeader.home")}</span>
        </Link>
        {admin ? (
          <>
            <AdminLinks className="site-nav admin-nav-wide" mainSiteUrl={mainSiteUrl} />
            <AdminMenu mainSiteUrl={mainSiteUrl} />
          </>
        ) : (
          <nav aria-label={t("common.adminHeader.navLabel")} className="site-nav">
            <a href={mainSiteUrl}>{t("common.adminHeader.mainSite")}</a>
            <LanguageSwitch />
            {user ? <SignOutButton /> : null}
          </nav>
        )}
      </div>
    </header>
  );
}

function AdminLinks({ className, mainSiteUrl }: { className: string; mainSiteUrl: string }) {
  const { t } = useT();
  return (
    <nav aria-label={t("common.adminHeader.navLabel")} className={className}>
      {SCREENS.map(([to, label]) => (
        <NavLink key={to} to={to}>
          {t(label)}
        </NavLink>
      ))}
      <a href={mainSiteUrl}>{t("common.adminHeader.mainSite")}</a>
      <LanguageSwitch />
      <SignOutButton />
    </nav>
  );
}

/** The phone menu: closed again after each move within the portal (with JavaScript; without, each page loads closed). */
function AdminMenu({ mainSiteUrl }: { mainSiteUrl: string }) {
  const { t } = useT();
  const ref = useRef<HTMLDetailsElement>(null);
  const { pathname, search } = useLocation();
  useEffect(() => {
    if (ref.current) ref.current.open = false;
  }, [pathname, search]);
  return (
    <details ref={ref} className="admin-menu">
      <summary>{t("common.adminHeader.menu")}</summary>
      <AdminLinks className="admin-menu-links" mainSiteUrl={mainSiteUrl} />
    </details>
  );
}
