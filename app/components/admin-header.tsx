import { useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { Link, NavLink } from "~/components/link";
import { SignOutButton, type HeaderUser } from "~/components/site-header";

const SCREENS: [string, string][] = [
  ["/users", "Users"],
  ["/messages", "Messages"],
  ["/analytics", "Analytics"],
  ["/disputes", "Disputes"],
  ["/pipeline", "Pipeline"],
  ["/rates", "Rates"],
  ["/categories", "Categories"],
  ["/audit", "Audit"],
];

/**
 * The admin portal's header: its own brand line, its screens, and a way back to the main site (another origin).
 * An admin's links are listed twice: in a row on wide screens, and behind a "Menu" `<details>` on phones (it
 * opens without JavaScript); CSS shows one of the two, so only one is ever in the accessibility tree.
 */
export function AdminHeader({ mainSiteUrl, user }: { mainSiteUrl: string; user: HeaderUser }) {
  const admin = user?.role === "admin";
  return (
    <header className="site-header admin-header">
      <div className="container header-row">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko <span className="brand-tag">Admin</span>
          <span className="visually-hidden"> home</span>
        </Link>
        {admin ? (
          <>
            <AdminLinks className="site-nav admin-nav-wide" mainSiteUrl={mainSiteUrl} />
            <AdminMenu mainSiteUrl={mainSiteUrl} />
          </>
        ) : (
          <nav aria-label="Admin" className="site-nav">
            <a href={mainSiteUrl}>Main site</a>
            {user ? <SignOutButton /> : null}
          </nav>
        )}
      </div>
    </header>
  );
}

function AdminLinks({ className, mainSiteUrl }: { className: string; mainSiteUrl: string }) {
  return (
    <nav aria-label="Admin" className={className}>
      {SCREENS.map(([to, label]) => (
        <NavLink key={to} to={to}>
          {label}
        </NavLink>
      ))}
      <a href={mainSiteUrl}>Main site</a>
      <SignOutButton />
    </nav>
  );
}

/** The phone menu: closed again after each move within the portal (with JavaScript; without, each page loads closed). */
function AdminMenu({ mainSiteUrl }: { mainSiteUrl: string }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const { pathname, search } = useLocation();
  useEffect(() => {
    if (ref.current) ref.current.open = false;
  }, [pathname, search]);
  return (
    <details ref={ref} className="admin-menu">
      <summary>Menu</summary>
      <AdminLinks className="admin-menu-links" mainSiteUrl={mainSiteUrl} />
    </details>
  );
}
