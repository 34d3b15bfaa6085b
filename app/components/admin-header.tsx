import { Link } from "@remix-run/react";

/** The admin portal's header: its own brand line and a way back to the main site (another origin). */
export function AdminHeader({ mainSiteUrl }: { mainSiteUrl: string }) {
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
          <a href={mainSiteUrl}>Main site</a>
        </nav>
      </div>
    </header>
  );
}
