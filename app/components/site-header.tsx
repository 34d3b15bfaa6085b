import { Link } from "@remix-run/react";

export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="container header-row">
        <Link to="/" className="brand">Soko</Link>
        <nav aria-label="Main">
          <Link to="/browse">Browse</Link>
          <Link to="/help">How it works</Link>
          <Link to="/login">Sign in</Link>
          <Link to="/register" className="button">Join</Link>
        </nav>
      </div>
    </header>
  );
}
