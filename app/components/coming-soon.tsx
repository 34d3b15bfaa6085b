/** A real page for an area whose screens arrive with a later piece of work: it says what will be here (`title` in the reader's language). */
export function ComingSoon({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="container form-page" aria-labelledby="coming-title">
      <h1 id="coming-title">{title}</h1>
      <div className="notice" role="note">
        {children}
      </div>
    </section>
  );
}

/** Each admin area's title and what it will hold, as catalogue keys (namespace `admin`): `t(ADMIN_SECTIONS.rates.title)`. */
export const ADMIN_SECTIONS = {
  dashboard: { title: "admin.dashboard.heading", text: "admin.soon.dashboard" },
  users: { title: "admin.users.heading", text: "admin.soon.users" },
  messages: { title: "admin.messages.heading", text: "admin.soon.messages" },
  analytics: { title: "admin.analytics.heading", text: "admin.soon.analytics" },
  audit: { title: "admin.audit.heading", text: "admin.soon.audit" },
  pipeline: { title: "admin.pipeline.heading", text: "admin.soon.pipeline" },
  rates: { title: "admin.rates.heading", text: "admin.soon.rates" },
} as const;
