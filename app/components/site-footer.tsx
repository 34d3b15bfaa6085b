export function SiteFooter({ year }: { year: number }) {
  return (
    <footer className="site-footer">
      <div className="container">
        <p>© {year} Soko</p>
      </div>
    </footer>
  );
}
