/** The conversion funnel's steps, in order (app/analytics/insights.server.ts counts them), and the keys that name them. */
export const FUNNEL_STEPS = ["visit", "gig_view", "contact", "order_placed", "paid"] as const;
export type FunnelStepKey = (typeof FUNNEL_STEPS)[number];

/** Each step's name, as a catalogue key of namespace `admin`: the screen and the API say it in the reader's language. */
export const FUNNEL_STEP_KEY: Record<FunnelStepKey, string> = {
  visit: "admin.funnel.stepVisit",
  gig_view: "admin.funnel.stepGigView",
  contact: "admin.funnel.stepContact",
  order_placed: "admin.funnel.stepOrderPlaced",
  paid: "admin.funnel.stepPaid",
};
