import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useState } from "react";
import { ChatAvatar } from "~/components/chat";
import { ErrorList, FormMessage } from "~/components/forms";
import { findAdminConversation, type AdminConversation, type AdminMessage } from "~/models/admin-conversation.server";
import { deleteConversationAsAdmin, flagConversationAsAdmin, listConversationsForAdmin, readConversation } from "~/operations/admin-conversations.server";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { ConversationListSchema, conversationIdField, DeleteConversationSchema, FlagConversationSchema } from "~/schemas/monitoring";
import { ADMIN_CONVERSATION_FILTERS, DELETE_CONVERSATION_CONFIRM, FILTER_LABELS } from "~/domain/admin-rules";
import { formFailure } from "~/server/operation-results.server";
import { usePreferences } from "~/hooks/use-preferences";
import chatStylesUrl from "~/styles/chat.css?url";
import monitoringStylesUrl from "~/styles/admin-monitoring.css?url";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";
import { requestLocale } from "~/i18n/locale.server";

/**
 * `/messages` on the admin host, `/admin/messages` on the main host (app/utils/site-routes.ts): message
 * monitoring. Conversations with a search (participants' names and emails, message text) and a filter
 * (flagged, recent, high volume), the flagged ones first (off-platform flags before an admin's); one
 * conversation's messages (`?conversation=`), whose every showing is audited; flag, unflag and delete (with
 * the confirmation of docs/product.md: in place with JavaScript, a confirmation page without).
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.messages.title") }, { name: "robots", content: "noindex" }];
};
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: chatStylesUrl },
  { rel: "stylesheet", href: monitoringStylesUrl },
];

const INTENTS = ["flag", "unflag", "delete"] as const;
type Intent = (typeof INTENTS)[number];
/** What was done, as catalogue keys (FormMessage says them). */
const DONE: Record<Intent, string> = {
  flag: "admin.messages.doneFlag",
  unflag: "admin.messages.doneUnflag",
  delete: "admin.messages.doneDelete",
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const params = new URL(request.url).searchParams;
  const list = ConversationListSchema.parse({ q: params.get("q") ?? "", filter: params.get("filter") ?? "all", page: params.get("page") ?? "1" });
  const listed = await listConversationsForAdmin(actor, list);
  const t = await requestT(request);
  if (!listed.ok) throw new Response(t("admin.messages.forbidden"), { status: 403 });
  const notFound = () => new Response(t("admin.form.conversationNotFound"), { status: 404 });

  let thread: { conversation: AdminConversation; messages: AdminMessage[]; older: boolean } | null = null;
  let confirmDelete: AdminConversation | null = null;
  const wanted = params.get("conversation");
  if (wanted !== null) {
    const id = conversationIdField.safeParse(wanted);
    if (!id.success) throw notFound();
    if (params.get("confirm") === "delete") {
      // The confirmation (without JavaScript) names the conversation; it shows no messages, so it is no reading.
      confirmDelete = await findAdminConversation(getDb(), id.data);
      if (!confirmDelete) throw notFound();
    } else {
      const before = Number(params.get("before"));
      // Reading members' messages writes its audit row: see readConversation for why this GET may.
      const read = await readConversation(actor, { conversationId: id.data, before: Number.isSafeInteger(before) && before > 0 ? before : undefined });
      if (!read.ok) throw read.error === "not_found" ? notFound() : new Response(t("admin.messages.forbidden"), { status: 403 });
      thread = read.value;
    }
  }
  // The screen's words and the chat's (its avatars and pieces come from app/components/chat.tsx).
  return { adminName, list, ...listed.value, thread, confirmDelete, notice: await doneNotice(params), ...(await pageMessages(request, ["admin", "chat"])) };
}

/** The confirmation after an action, checked against what is stored (a link cannot claim what did not happen). */
async function doneNotice(params: URLSearchParams): Promise<string | null> {
  const done = params.get("done");
  const id = conversationIdField.safeParse(params.get("done_id") ?? "");
  if (!(INTENTS as readonly string[]).includes(done ?? "") || !id.success) return null;
  const conversation = await findAdminConversation(getDb(), id.data);
  const holds =
    done === "delete" ? conversation === null : done === "flag" ? Boolean(conversation?.flaggedAt) : conversation !== null && !conversation.flaggedAt;
  return holds ? DONE[done as Intent] : null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operation's actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");
  const conversationId = String(formData.get("conversationId") ?? "");
  if (!(INTENTS as readonly string[]).includes(intent)) {
    return data({ intent, conversationId, errors: ["admin.messages.chooseIntent"] }, { status: 400 });
  }
  const url = new URL(request.url);
  const back = new URLSearchParams();
  for (const key of ["q", "filter", "page"]) {
    const value = url.searchParams.get(key);
    if (value) back.set(key, value);
  }
  if (intent === "delete") {
    const submission = parseWithZod(formData, { schema: DeleteConversationSchema });
    if (submission.status !== "success") return data({ intent, conversationId, errors: errorsOf(submission.reply().error) }, { status: 400 });
    const result = await deleteConversationAsAdmin(actor, submission.value);
    if (!result.ok) return failed(intent, conversationId, formFailure(submission.reply, result, { locale: await requestLocale(request) }));
  } else {
    formData.set("flagged", intent === "flag" ? "true" : "false");
    const submission = parseWithZod(formData, { schema: FlagConversationSchema });
    if (submission.status !== "success") return data({ intent, conversationId, errors: errorsOf(submission.reply().error) }, { status: 400 });
    const result = await flagConversationAsAdmin(actor, submission.value);
    if (!result.ok) return failed(intent, conversationId, formFailure(submission.reply, result, { locale: await requestLocale(request) }));
    back.set("conversation", submission.value.conversationId);
  }
  back.set("done", intent);
  back.set("done_id", conversationId.trim());
  return redirect(`${url.pathname}?${back}`, 303);
}

const errorsOf = (error: Record<string, string[] | null> | undefined) => Object.values(error ?? {}).flatMap((e) => e ?? []);

function failed(intent: string, conversationId: string, failure: ReturnType<typeof formFailure>) {
  return data({ intent, conversationId, errors: errorsOf(failure.data.error) }, failure.init ?? undefined);
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

/** A link to this screen with the list's search and filter kept (relative: the screen lives under /admin on the main host). */
function listQuery(list: Loaded["list"], extra: Record<string, string> = {}) {
  const q = new URLSearchParams();
  if (list.q) q.set("q", list.q);
  if (list.filter !== "all") q.set("filter", list.filter);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "?";
}

export default function AdminMessages() {
  const { list, conversations, more, thread, confirmDelete, notice } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useT();
  return (
    <section className="container admin-messages" aria-labelledby="messages-title">
      <h1 id="messages-title">{t("admin.messages.heading")}</h1>
      <FormMessage success={answer ? null : notice} />
      <ErrorList errors={answer?.errors} />
      {confirmDelete ? (
        <DeleteConfirmation conversation={confirmDelete} back={listQuery(list, { conversation: confirmDelete.id })} action={listQuery(list)} />
      ) : (
        <div className="monitor-layout">
          <ConversationList list={list} conversations={conversations} more={more} selected={thread?.conversation.id ?? null} />
          {thread ? <Thread list={list} thread={thread} /> : null}
        </div>
      )}
    </section>
  );
}

function SearchForm({ list }: { list: Loaded["list"] }) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const searching = navigation.state === "loading" && navigation.formMethod === "GET";
  const { t } = useT();
  return (
    <Form method="get" className="monitor-search" role="search" aria-label={t("admin.messages.searchLabel")}>
      <div className="field">
        <label htmlFor="monitor-q">{t("admin.messages.search")}</label>
        <input id="monitor-q" type="search" name="q" defaultValue={list.q} maxLength={200} placeholder={t("admin.messages.searchPlaceholder")} />
      </div>
      <div className="field">
        <label htmlFor="monitor-filter">{t("admin.messages.show")}</label>
        <select id="monitor-filter" name="filter" defaultValue={list.filter} onChange={(e) => submit(e.currentTarget.form)}>
          {ADMIN_CONVERSATION_FILTERS.map((f) => (
            <option key={f} value={f}>
              {t(FILTER_LABELS[f])}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" className="button" disabled={searching} aria-disabled={searching}>
        {searching ? t("admin.messages.searching") : t("admin.messages.search")}
      </button>
    </Form>
  );
}

const FLAG_WORDS: Record<string, string> = {
  phone_number: "admin.messages.flagPhone",
  mobile_money: "admin.messages.flagMobileMoney",
  chat_handle: "admin.messages.flagChatHandle",
};

type Say = ReturnType<typeof useT>["t"];

/** A flag's reason in words: messaging's off-platform reasons, or an admin's own flag. */
function flagWords(t: Say, reason: string | null): string {
  if (!reason) return t("admin.messages.flagged");
  if (reason === "admin") return t("admin.messages.flaggedByAdmin");
  if (reason.startsWith("off_platform:")) {
    const key = FLAG_WORDS[reason.slice("off_platform:".length)];
    return key ? t(key) : t("admin.messages.offPlatform");
  }
  return t("admin.messages.flaggedWhy", { reason });
}

/** The participants' names, "Akello and Okello" (and a third "and" for a third). */
function namesOf(t: Say, people: { name: string }[]): string {
  return people.map((p) => p.name).reduce((all, name) => t("admin.messages.andName", { all, name }));
}

function ConversationList({
  list,
  conversations,
  more,
  selected,
}: {
  list: Loaded["list"];
  conversations: AdminConversation[];
  more: boolean;
  selected: string | null;
}) {
  const { dateTime } = usePreferences();
  const { t } = useT();
  return (
    <div className="monitor-list">
      <SearchForm list={list} />
      {conversations.length === 0 ? (
        <p className="chat-empty">{t("admin.messages.noConversations")}</p>
      ) : (
        <ul className="monitor-conversations" aria-label={t("admin.messages.conversations")}>
          {conversations.map((c) => (
            <li key={c.id} className={`monitor-conversation${c.flaggedAt ? " monitor-flagged" : ""}${c.id === selected ? " chat-conversation-selected" : ""}`}>
              <div className="monitor-people">
                {c.participants.map((p) => (
                  <div key={p.id} className="monitor-person">
                    <ChatAvatar person={p} size={32} />
                    <span>
                      <span className="monitor-name">{p.name}</span> <span className="monitor-email">{p.email}</span>
                    </span>
                  </div>
                ))}
              </div>
              {c.flaggedAt ? <p className="monitor-flag">{flagWords(t, c.flagReason)}</p> : null}
              <p className="monitor-last">
                {c.lastMessage ? (
                  <>
                    <span className="monitor-name">{c.lastMessage.senderName}:</span>{" "}
                    {c.lastMessage.body || (c.lastMessage.type === "file" ? t("admin.messages.sentFile") : "")}{" "}
                    <time dateTime={c.lastMessage.at}>{dateTime(c.lastMessage.at)}</time>
                  </>
                ) : (
                  t("admin.messages.noMessages")
                )}
              </p>
              <p className="monitor-meta">
                {t("admin.messages.count", { count: c.messageCount })} ·{" "}
                <Link to={listQuery(list, { conversation: c.id })} aria-label={t("admin.messages.readLabel", { names: namesOf(t, c.participants) })}>
                  {t("admin.messages.read")}
                </Link>
              </p>
            </li>
          ))}
        </ul>
      )}
      <nav className="monitor-pages" aria-label={t("admin.messages.pages")}>
        {list.page > 1 ? <Link to={listQuery(list, { page: String(list.page - 1) })}>{t("admin.messages.previousPage")}</Link> : null}
        {more ? <Link to={listQuery(list, { page: String(list.page + 1) })}>{t("admin.messages.nextPage")}</Link> : null}
      </nav>
    </div>
  );
}

function Thread({ list, thread }: { list: Loaded["list"]; thread: NonNullable<Loaded["thread"]> }) {
  const { conversation: c, messages, older } = thread;
  const { dateTime } = usePreferences();
  const { t } = useT();
  const names = namesOf(t, c.participants);
  return (
    <article className="monitor-thread" aria-labelledby="thread-title">
      <h2 id="thread-title">{t("admin.messages.between", { names })}</h2>
      <p className="field-hint">
        {c.participants.map((p) => `${p.name} (${p.email})`).join(" · ")} · {t("admin.messages.count", { count: c.messageCount })}
      </p>
      {c.flaggedAt ? (
        <p className="monitor-flag">
          <T
            id="admin.messages.flaggedSince"
            values={{ flag: flagWords(t, c.flagReason), at: dateTime(c.flaggedAt) }}
            components={{ 0: <time dateTime={c.flaggedAt} /> }}
          />
        </p>
      ) : null}
      <div className="monitor-actions">
        <ActionForm list={list} conversationId={c.id} intent={c.flaggedAt ? "unflag" : "flag"} />
        <DeleteButton list={list} conversation={c} />
      </div>
      {older && messages.length ? (
        <p>
          <Link to={listQuery(list, { conversation: c.id, before: String(messages[0]!.id) })}>{t("admin.messages.older")}</Link>
        </p>
      ) : null}
      {messages.length === 0 ? (
        <p className="chat-empty">{t("admin.messages.noMessages")}</p>
      ) : (
        <ol className="monitor-messages" aria-label={t("admin.messages.messages")}>
          {messages.map((m) => (
            <li key={m.id} className={`monitor-message${m.offPlatform ? " monitor-off-platform" : ""}`}>
              <ChatAvatar person={m.sender} size={32} />
              <div>
                <p className="monitor-message-head">
                  <span className="monitor-name">{m.sender.name}</span> <time dateTime={m.at}>{dateTime(m.at)}</time>
                  {m.offPlatform ? <span className="monitor-marker"> {t("admin.messages.offPlatform")}</span> : null}
                </p>
                {m.body ? <p className="pre-wrap monitor-body">{m.body}</p> : null}
                {m.attachments.length ? (
                  <ul className="plain-list monitor-files" aria-label={t("admin.messages.attachments")}>
                    {m.attachments.map((a) => (
                      <li key={a.id}>{fileLabel(a)}</li>
                    ))}
                  </ul>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}

/** "report.pdf (application/pdf, 12 KB)": a file's name, type and size (KB, a unit, the same in every language). */
function fileLabel(a: { fileName: string; contentType: string; sizeBytes: number }): string {
  return `${a.fileName} (${a.contentType}, ${Math.max(1, Math.round(a.sizeBytes / 1024))} KB)`;
}

const BUTTONS: Record<Intent, { label: string; pending: string }> = {
  flag: { label: "admin.messages.flag", pending: "admin.messages.flagging" },
  unflag: { label: "admin.messages.unflag", pending: "admin.messages.unflagging" },
  delete: { label: "admin.messages.yesDelete", pending: "admin.messages.deleting" },
};

function ActionForm({ list, conversationId, intent }: { list: Loaded["list"]; conversationId: string; intent: Intent }) {
  const { t } = useT();
  const navigation = useNavigation();
  const pending =
    navigation.state === "submitting" && navigation.formData?.get("intent") === intent && navigation.formData?.get("conversationId") === conversationId;
  return (
    <Form method="post" action={listQuery(list)} className="inline-form">
      <input type="hidden" name="conversationId" value={conversationId} />
      <button
        type="submit"
        name="intent"
        value={intent}
        className={intent === "delete" ? "button button-danger" : "button button-secondary"}
        disabled={pending}
        aria-disabled={pending}
      >
        {pending ? t(BUTTONS[intent].pending) : t(BUTTONS[intent].label)}
      </button>
    </Form>
  );
}

/**
 * Delete asks first, in the words of docs/product.md. With JavaScript the question opens in place; without, the
 * button is a GET to the confirmation page (`?conversation=…&confirm=delete`), which asks the same.
 */
function DeleteButton({ list, conversation }: { list: Loaded["list"]; conversation: AdminConversation }) {
  const [asking, setAsking] = useState(false);
  const [hydrated, setHydrated] = useState(false);
  const { t } = useT();
  useEffect(() => setHydrated(true), []);
  if (asking) {
    return (
      <div className="monitor-confirm" role="alertdialog" aria-labelledby={`confirm-${conversation.id}`}>
        <p id={`confirm-${conversation.id}`}>{t(DELETE_CONVERSATION_CONFIRM)}</p>
        <ActionForm list={list} conversationId={conversation.id} intent="delete" />
        <button type="button" className="button button-secondary" onClick={() => setAsking(false)}>
          {t("admin.messages.cancel")}
        </button>
      </div>
    );
  }
  return (
    <Form
      method="get"
      className="inline-form"
      onSubmit={(e) => {
        if (!hydrated) return;
        e.preventDefault();
        setAsking(true);
      }}
    >
      {list.q ? <input type="hidden" name="q" value={list.q} /> : null}
      {list.filter !== "all" ? <input type="hidden" name="filter" value={list.filter} /> : null}
      <input type="hidden" name="conversation" value={conversation.id} />
      <input type="hidden" name="confirm" value="delete" />
      <button type="submit" className="button button-danger">
        {t("admin.messages.delete")}
      </button>
    </Form>
  );
}

function DeleteConfirmation({ conversation, back, action }: { conversation: AdminConversation; back: string; action: string }) {
  const { t } = useT();
  const names = namesOf(t, conversation.participants);
  return (
    <div className="form-card monitor-confirm-page">
      <h2>{t("admin.messages.deleteHeading", { names })}</h2>
      <p>{t(DELETE_CONVERSATION_CONFIRM)}</p>
      <p className="field-hint">{t("admin.messages.deleteWhat", { count: conversation.messageCount })}</p>
      <Form method="post" action={action} className="inline-form">
        <input type="hidden" name="conversationId" value={conversation.id} />
        <button type="submit" name="intent" value="delete" className="button button-danger">
          {t("admin.messages.yesDelete")}
        </button>
      </Form>{" "}
      <Link to={back} className="button button-secondary">
        {t("admin.messages.cancel")}
      </Link>
    </div>
  );
}
