/**
 * /messages with no thread chosen. Reached with `?to=<username>`, `?gig=<id>` or `?order=<id>` (where a
 * visitor's Contact Seller lands after signing in, and older links), it offers to start that conversation:
 * a GET changes nothing, so starting it is a button (a POST to /messages).
 */
import type { LoaderFunctionArgs } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { getGigPage } from "~/models/gig.server";
import { getPublicProfile } from "~/models/profile.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { useT } from "~/i18n/react";

const positive = (value: string | null) => (value && /^\d{1,12}$/.test(value) && Number(value) > 0 ? Number(value) : null);

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const url = new URL(request.url);
  const db = getDb();
  const gigId = positive(url.searchParams.get("gig"));
  const orderId = positive(url.searchParams.get("order"));
  const gig = gigId ? await getGigPage(db, gigId, user) : null;
  const username = url.searchParams.get("to")?.slice(0, 60) ?? gig?.seller.username ?? null;
  const person = username ? await getPublicProfile(db, username) : null;
  if (!person || person.id === user.id) return { start: null };
  return {
    start: {
      name: person.name,
      username: person.username,
      gig: gig && gig.status === "published" && gig.seller.id === person.id ? { id: gig.id, title: gig.title } : null,
      orderId,
    },
  };
}

/** The page's words (the `chat` namespace) come with the layout's loader (messages.tsx). */
export default function NoThread() {
  const { t } = useT();
  const { start } = useLoaderData<typeof loader>();
  if (!start) {
    return (
      <div className="chat-none">
        <p>{t("chat.none.choose")}</p>
        <p className="field-hint">{t("chat.none.hint")}</p>
      </div>
    );
  }
  return (
    <div className="chat-none">
      <h2>{t("chat.start.title", { name: start.name, username: start.username })}</h2>
      <p>{start.gig ? t("chat.start.aboutGig", { title: start.gig.title }) : t("chat.start.intro")}</p>
      <Form method="post" action="/messages">
        <input type="hidden" name="intent" value="start" />
        <input type="hidden" name="to" value={start.username} />
        {start.gig ? <input type="hidden" name="gigId" value={start.gig.id} /> : null}
        {start.orderId ? <input type="hidden" name="orderId" value={start.orderId} /> : null}
        <SubmitButton pendingLabel={t("chat.start.opening")}>{t("chat.start.submit")}</SubmitButton>
      </Form>
    </div>
  );
}
