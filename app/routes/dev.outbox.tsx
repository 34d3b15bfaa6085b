import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { isOutboxOpen, listOutbox } from "~/models/outbox.server";
import { isSmsOutboxOpen, listTexts } from "~/models/sms.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { requireLoopbackHost } from "~/server/host.server";

export const meta: MetaFunction = () => [{ title: "Outbox (development) | Soko" }, { name: "robots", content: "noindex" }];

/**
 * The mail we would have sent, password-reset links included: for a browser on this machine only, asking
 * for a loopback name (localhost, 127.0.0.1: not a name that another site rebinds to this machine), while no
 * mail server is configured, and in production only on a demo machine (DEV_OUTBOX=1). 404 otherwise.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  requireLoopbackHost(request);
  const mailOpen = isOutboxOpen(getEnv(), context);
  // The SMS sandbox's texts (verification codes among them) under the same rules, while no gateway is configured.
  const smsOpen = isSmsOutboxOpen(getEnv(), context);
  if (!mailOpen && !smsOpen) throw new Response("Not Found", { status: 404 });
  return { mails: mailOpen ? await listOutbox(getDb()) : [], texts: smsOpen ? await listTexts(getDb()) : null };
}

export default function Outbox() {
  const { mails, texts } = useLoaderData<typeof loader>();
  return (
    <section className="container form-page outbox" aria-labelledby="outbox-title">
      <h1 id="outbox-title">Outbox</h1>
      <p>No mail server is configured, so mail is kept here. Newest first.</p>
      {mails.length === 0 ? <p>No mail yet.</p> : null}
      {mails.map((m) => (
        <article key={m.id} aria-label={m.subject}>
          <h2>{m.subject}</h2>
          <p>
            To: {m.to} · {new Date(m.createdAt).toISOString()}
          </p>
          <pre>{linkify(m.body)}</pre>
        </article>
      ))}
      {texts ? (
        <section aria-labelledby="outbox-texts">
          <h2 id="outbox-texts">Texts (SMS sandbox)</h2>
          {texts.length === 0 ? <p>No texts yet.</p> : null}
          {texts.map((sms) => (
            <article key={sms.id} aria-label={`Text to ${sms.to}`} className="outbox-text">
              <p>
                To: {sms.to} · {sms.purpose} · {sms.sentAt ? new Date(sms.sentAt).toISOString() : "not sent yet"}
              </p>
              <pre>{sms.body}</pre>
            </article>
          ))}
        </section>
      ) : null}
    </section>
  );
}

function linkify(body: string) {
  return body.split(/(https?:\/\/\S+)/).map((part, i) =>
    /^https?:\/\//.test(part) ? (
      <a key={i} href={part}>
        {part}
      </a>
    ) : (
      part
    ),
  );
}
