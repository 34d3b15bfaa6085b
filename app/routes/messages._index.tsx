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

export default function NoThread() {
  const { start } = useLoaderData<typeof loader>();
  if (!start) {
    return (
      <div className="chat-none">
        <p>Choose a conversation to read it and reply.</p>
        <p className="field-hint">To write to a seller, press Contact Seller on one of their gigs.</p>
      </div>
    );
  }
  return (
    <div className="chat-none">
      <h2>
        Your conversation with {start.name} (@{start.username})
      </h2>
      <p>{start.gig ? `About “${start.gig.title}”. ` : ""}It starts when you press Start conversation.</p>
      <Form method="post" action="/messages">
        <input type="hidden" name="intent" value="start" />
        <input type="hidden" name="to" value={start.username} />
        {start.gig ? <input type="hidden" name="gigId" value={start.gig.id} /> : null}
        {start.orderId ? <input type="hidden" name="orderId" value={start.orderId} /> : null}
        <SubmitButton pendingLabel="Opening…">Start conversation</SubmitButton>
      </Form>
    </div>
  );
}
