import { Form } from "@remix-run/react";
import { Link, NavLink } from "~/components/link";
import { CountBadge, countLabel, NotificationBell, useHeaderCounts, type HeaderCounts } from "~/components/notification-bell";

export type HeaderUser = { name: string; username: string; role: "client" | "freelancer" | "admin" } | null;

/** Signing out is a POST form, styled as a link, so it works without JavaScript and no prefetch can trigger it. */
export function SignOutButton() {
  return (
    <Form method="post" action="/logout" className="inline-form">
      <button type="submit" className="link-button">
        Sign out
      </button>
    </Form>
  );
}

/**
 * The main site's header. The nav is a few short links that wrap under the brand on narrow screens, so it
 * works on any phone without JavaScript (no hamburger menu to open). A member's Messages link and bell carry
 * their unread counts, live once the page has JavaScript (app/components/notification-bell.tsx).
 */
export function SiteHeader({ user, counts: initial }: { user: HeaderUser; counts: HeaderCounts | null }) {
  const { counts, live, news } = useHeaderCounts(user ? initial : null);
  return (
    <header className="site-header">
      <div className="container header-row">
        {/* Named by its visible text (plus a hidden "home"): an aria-label that differs from what a speech-input
            user reads on screen fails WCAG 2.5.3 (Lighthouse's label-content-name-mismatch). */}
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko<span className="visually-hidden"> home</span>
        </Link>
        <nav aria-label="Main" className="site-nav">
          <NavLink to="/browse">Browse</NavLink>
          <NavLink to="/help">How it works</NavLink>
          {user ? (
            <>
              <NavLink to="/dashboard">Dashboard</NavLink>
              <NavLink to="/orders">Orders</NavLink>
              <NavLink to="/messages" aria-label={countLabel("Messages", counts?.messages ?? 0)}>
                Messages <CountBadge count={counts?.messages ?? 0} />
              </NavLink>
              <NavLink to="/settings">Settings</NavLink>
              {user.role === "admin" ? <NavLink to="/admin">Admin</NavLink> : null}
              <NotificationBell unread={counts?.notifications ?? 0} live={live} />
              {/* Read as "Signed in as <name>": a label on the span would have hidden the name (and a plain span may not have one). */}
              <span className="header-user">
                <span className="visually-hidden">Signed in as </span>
                {user.name}
              </span>
              <SignOutButton />
            </>
          ) : (
            <>
              <NavLink to="/login">Sign in</NavLink>
              <NavLink to="/register" className="button button-small">
                Join
              </NavLink>
            </>
          )}
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
