import { Link, NavLink } from "~/components/link";
import { SignOutButton, type HeaderUser } from "~/components/site-header";

/** The admin portal's header: its own brand line, its screens, and a way back to the main site (another origin). */
export function AdminHeader({ mainSiteUrl, user }: { mainSiteUrl: string; user: HeaderUser }) {
  const admin = user?.role === "admin";
  return (
    <header className="site-header admin-header">
      <div className="container header-row">
        <Link to="/" className="brand" aria-label="Soko Admin home">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko <span className="brand-tag">Admin</span>
        </Link>
        <nav aria-label="Admin" className="site-nav">
          {admin ? (
            <>
              <NavLink to="/users">Users</NavLink>
              <NavLink to="/messages">Messages</NavLink>
              <NavLink to="/analytics">Analytics</NavLink>
              <NavLink to="/disputes">Disputes</NavLink>
              <NavLink to="/pipeline">Pipeline</NavLink>
              <NavLink to="/rates">Rates</NavLink>
              <NavLink to="/categories">Categories</NavLink>
              <NavLink to="/audit">Audit</NavLink>
            </>
          ) : null}
          <a href={mainSiteUrl}>Main site</a>
          {user ? <SignOutButton /> : null}
        </nav>
      </div>
    </header>
  );
}
