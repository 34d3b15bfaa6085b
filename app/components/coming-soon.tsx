/** A real page for an area whose screens arrive with a later piece of work: it says what will be here. */
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

export const ADMIN_SECTIONS = {
  dashboard: {
    title: "Admin dashboard",
    text: "Active users, sign-ups, orders and revenue today, with top countries and devices, refreshed every 30 seconds. This screen is being built next.",
  },
  users: {
    title: "User management",
    text: "Search and filter members by role and status; suspend, ban, activate or delete them one by one or in bulk. This screen is being built next.",
  },
  messages: { title: "Message monitoring", text: "Search conversations, read their messages, and flag or delete them. This screen is being built next." },
  analytics: {
    title: "Analytics",
    text: "Page views, sessions, conversions and real-time visitors over 1, 7, 30 or 90 days, with CSV export. This screen is being built next.",
  },
  audit: {
    title: "Audit log",
    text: "Every admin action and every admin reading of members' conversations and exports: who, what, whom, when and from which address. This screen is being built next.",
  },
  pipeline: {
    title: "Pipeline health",
    text: "Events accepted, inserted, dropped and failed per minute, the queue's depth and lag, and the failed events with a replay button. This screen is being built next.",
  },
  rates: {
    title: "Exchange rate",
    text: "The UGX/USD rate prices are shown at, with its history. Orders keep the rate of their checkout. This screen is being built next.",
  },
} as const;
