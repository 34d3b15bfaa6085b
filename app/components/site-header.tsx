import { Link, NavLink } from "@remix-run/react";

/**
 * The main site's header. The nav is four short links that wrap under the brand on narrow screens, so it
 * works on any phone without JavaScript (no hamburger menu to open).
 */
export function SiteHeader() {
  return (
    <header className="site-header">
      <div className="container header-row">
        <Link to="/" className="brand" aria-label="Soko home">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Soko
        </Link>
        <nav aria-label="Main" className="site-nav">
          <NavLink to="/browse">Browse</NavLink>
          <NavLink to="/help">How it works</NavLink>
          <NavLink to="/login">Sign in</NavLink>
          <NavLink to="/register" className="button button-small">
            Join
          </NavLink>
        </nav>
      </div>
    </header>
  );
}
