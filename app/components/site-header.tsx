import { Form, useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { Link, NavLink } from "~/components/link";
import { CountBadge, countLabel, NotificationBell, useHeaderCounts, type HeaderCounts } from "~/components/notification-bell";
import { Icon } from "~/components/icon";
import { useT } from "~/i18n/react";

export type HeaderUser = { name: string; username: string; role: "client" | "freelancer" | "admin" } | null;

/** Signing out is a POST form, styled as a link, so it works without JavaScript and no prefetch can trigger it. */
export function SignOutButton() {
  const { t } = useT();
  return (
    <Form method="post" action="/logout" className="inline-form">
      <button type="submit" className="link-button">
        {t("common.header.signOut")}
      </button>
    </Form>
  );
}

const SEARCH = "M11 18a7 7 0 1 0 0-14 7 7 0 0 0 0 14zM21 21l-5-5";
const CHAT = "M21 12a8 8 0 0 1-11.6 7.1L3 21l1.9-6.4A8 8 0 1 1 21 12z";
const MENU = "M4 6h16M4 12h16M4 18h16";

/**
 * The main site's header: one row at any width. On a phone it holds the brand, Search, a member's Messages and
 * notification bell with their unread counts (live once the page has JavaScript, app/components/notification-bell.tsx),
 * a visitor's "Sign in", and a menu for the rest. The menu is a <details>, so it opens without JavaScript; with
 * JavaScript it closes again after a navigation (the header stays on the page). A wide screen also shows the
 * main links in the row; the menu then keeps only what is not already beside it.
 */
export function SiteHeader({ user, counts: initial }: { user: HeaderUser; counts: HeaderCounts | null }) {
  const { t } = useT();
  const { counts, live, news } = useHeaderCounts(user ? initial : null);
  const menu = useRef<HTMLDetailsElement>(null);
  const { pathname, search } = useLocation();
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [pathname, search]);
  const messages = counts?.messages ?? 0;
  return (
    <header className="site-header main-header">
      <div className="container header-row">
        {/* Named by its visible text (plus a hidden "home"): an aria-label that differs from what a speech-input
            user reads on screen fails WCAG 2.5.3 (Lighthouse's label-content-name-mismatch). */}
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko<span className="visually-hidden"> {t("common.header.home")}</span>
        </Link>
        <nav aria-label={t("common.header.mainNav")} className="site-nav">
          <NavLink to="/browse" className="nav-wide">
            {t("common.header.browse")}
          </NavLink>
          <NavLink to="/help" className="nav-wide">
            {t("common.header.howItWorks")}
          </NavLink>
          {user ? (
            <>
              <NavLink to="/dashboard" className="nav-wide">
                {t("common.header.dashboard")}
              </NavLink>
              <NavLink to="/orders" className="nav-wide">
                {t("common.header.orders")}
              </NavLink>
            </>
          ) : null}
          <NavLink to="/search" className="header-icon" aria-label={t("common.header.search")}>
            <Icon paths={[SEARCH]} />
          </NavLink>
          {user ? (
            <>
              <NavLink
                to="/messages"
                className="header-icon"
                aria-label={countLabel(t("common.header.messages"), (count) => t("common.header.messagesUnread", { count }), messages)}
              >
                <Icon paths={[CHAT]} />
                <CountBadge count={messages} />
              </NavLink>
              <NotificationBell unread={counts?.notifications ?? 0} live={live} />
            </>
          ) : (
            <>
              <NavLink to="/login" className="header-text">
                {t("common.header.signIn")}
              </NavLink>
              <NavLink to="/register" className="button button-small nav-wide">
                {t("common.header.join")}
              </NavLink>
            </>
          )}
          <details className="header-menu" ref={menu}>
            <summary>
              <Icon paths={[MENU]} />
              <span className="header-menu-label">{t("common.header.menu")}</span>
            </summary>
            <ul className="header-menu-list">
              {/* Beside the menu on a wide screen; in it on a phone. */}
              <li className="menu-narrow">
                <NavLink to="/browse">{t("common.header.browse")}</NavLink>
              </li>
              <li className="menu-narrow">
                <NavLink to="/help">{t("common.header.howItWorks")}</NavLink>
              </li>
              <li>
                <NavLink to="/freelancers">{t("common.directory.link")}</NavLink>
              </li>
              {user ? (
                <>
                  <li>
                    <NavLink to="/saved">{t("common.saved.link")}</NavLink>
                  </li>
                  <li className="menu-narrow">
                    <NavLink to="/dashboard">{t("common.header.dashboard")}</NavLink>
                  </li>
                  <li className="menu-narrow">
                    <NavLink to="/orders">{t("common.header.orders")}</NavLink>
                  </li>
                  <li>
                    <NavLink to="/settings">{t("common.header.settings")}</NavLink>
                  </li>
                  {user.role === "admin" ? (
                    <li>
                      <NavLink to="/admin">{t("common.header.admin")}</NavLink>
                    </li>
                  ) : null}
                  {/* Read as "Signed in as <name>": a label on the span would have hidden the name (and a plain span may not have one). */}
                  <li className="header-user">
                    <span className="visually-hidden">{t("common.header.signedInAs")} </span>
                    {user.name}
                  </li>
                  <li>
                    <SignOutButton />
                  </li>
                </>
              ) : (
                <>
                  <li className="menu-narrow">
                    <NavLink to="/register">{t("common.header.join")}</NavLink>
                  </li>
                  <li>
                    <NavLink to="/freelancer/register">{t("common.header.becomeSeller")}</NavLink>
                  </li>
                </>
              )}
            </ul>
          </details>
        </nav>
        {user ? (
          <p className="visually-hidden" role="status">
            {news}
          </p>
        ) : null}
      </div>
    </header>
  );
}
