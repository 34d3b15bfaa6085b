import { Link } from "@remix-run/react";

export function AdminHeader({ mainSiteUrl }: { mainSiteUrl: string }) {
  return (
    <header className="site-header admin">
      <div className="container header-row">
        <Link to="/" className="brand">
          Soko <span className="brand-tag">Admin</span>
        </Link>
        <a href={mainSiteUrl}>Back to the main site</a>
      </div>
    </header>
  );
}
