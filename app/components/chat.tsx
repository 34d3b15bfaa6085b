/**
 * The pieces of the /messages page: the conversation list, the connection indicator, one message with its
 * mark, and the send box. Everything a member wrote is shown as text (React escapes it) and nothing in it
 * becomes a link. Each piece works from the loaders' HTML alone; JavaScript only adds the live parts.
 */
import { Form, useFetcher, useNavigation } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { ConversationSummary, Person } from "~/models/conversation.server";
import { imageUrl } from "~/utils/media";
import { EMPTY_MESSAGE, MAX_MESSAGE_CHARS } from "~/domain/message-rules";
import type { ChatMessage, SendResult } from "~/hooks/use-chat";
import { usePreferences } from "~/hooks/use-preferences";
import { ErrorList } from "~/components/forms";
import { T, useT } from "~/i18n/react";
import { initialsOf, useDataSaver } from "~/components/data-saver";

export function ChatAvatar({ person, size = 40 }: { person: Pick<Person, "name" | "avatarKey">; size?: number }) {
  const saver = useDataSaver();
  return person.avatarKey && !saver ? (
    <img className="chat-avatar" src={imageUrl(person.avatarKey, "avatar")} alt="" width={size} height={size} loading="lazy" />
  ) : (
    <span className="chat-avatar chat-avatar-initials" aria-hidden="true">
      {initialsOf(person.name)}
    </span>
  );
}

/** The live connection, in words: shown only where JavaScript runs, since only then is there one. */
export function ConnectionStatus({ connected }: { connected: boolean | null }) {
  const { t } = useT();
  if (connected === null) return null;
  return (
    <p role="status" className={`chat-connection ${connected ? "chat-connected" : "chat-disconnected"}`}>
      {connected ? t("chat.connection.connected") : t("chat.connection.reconnecting")}
    </p>
  );
}

/** What the list shows of a conversation's last message. */
function preview(t: ReturnType<typeof useT>["t"], c: ConversationSummary, me: number): string {
  const m = c.lastMessage;
  if (!m) return t("chat.list.noMessages");
  const file = m.type === "file" && !m.body;
  if (m.senderId === me) return file ? t("chat.list.youSentFile") : t("chat.list.you", { text: m.body });
  return file ? t("chat.list.sentFile") : m.body;
}

export function ConversationList({
  conversations,
  me,
  selectedId,
  q,
  searched,
  nextPage,
}: {
  conversations: ConversationSummary[];
  me: number;
  selectedId: string | null;
  q: string;
  /** A search or a later page: the empty state says "No results found". */
  searched: boolean;
  nextPage: string | null;
}) {
  const { t } = useT();
  const { date, dateTime, time } = usePreferences();
  const today = date(new Date());
  // Today's messages by their time ("09:53 EAT": the time, then the zone dateTime ends with), older ones by
  // their day: the list's column is narrow.
  const when = (at: string) => (date(at) === today ? `${time(at)} ${dateTime(at).split(" ").pop()!}` : date(at));
  const suffix = q ? `?q=${encodeURIComponent(q)}` : "";
  return (
    <nav className="chat-list" aria-label={t("chat.list.label")}>
      <Form method="get" action="/messages" className="chat-search" role="search">
        <label htmlFor="chat-q" className="visually-hidden">
          {t("chat.list.searchLabel")}
        </label>
        <input id="chat-q" name="q" type="search" defaultValue={q} maxLength={100} placeholder={t("chat.list.searchPlaceholder")} />
        <button type="submit" className="button button-small">
          {t("chat.list.search")}
        </button>
      </Form>
      {conversations.length ? (
        <ul className="chat-conversations">
          {conversations.map((c) => (
            <li key={c.id}>
              <Link
                to={`/messages/${c.id}${suffix}`}
                className={`chat-conversation${c.id === selectedId ? " chat-conversation-selected" : ""}`}
                aria-current={c.id === selectedId ? "page" : undefined}
              >
                <ChatAvatar person={c.other} />
                <span className="chat-conversation-body">
                  <span className="chat-conversation-name">{c.other.name}</span>
                  <span className="chat-conversation-last">{preview(t, c, me)}</span>
                </span>
                <span className="chat-conversation-meta">
                  {c.lastMessage ? (
                    <time dateTime={c.lastMessage.at} title={dateTime(c.lastMessage.at)}>
                      {when(c.lastMessage.at)}
                    </time>
                  ) : null}
                  {c.unreadCount > 0 ? (
                    <span className="chat-unread" data-testid="unread-count">
                      <T id="chat.list.unread" values={{ count: c.unreadCount }} components={{ 0: <span className="visually-hidden" /> }} />
                    </span>
                  ) : null}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <p className="chat-empty">{searched ? t("chat.list.noResults") : t("chat.list.empty")}</p>
      )}
      {nextPage ? (
        <p className="chat-more">
          <Link to={nextPage}>{t("chat.list.more")}</Link>
        </p>
      ) : null}
    </nav>
  );
}

const MARK: Record<ChatMessage["status"], string> = { sent: "chat.message.sent", delivered: "chat.message.delivered", read: "chat.message.read" };

/** "1.5 MB", "12 KB", with the reader's decimal sign (no grouping: a file is under 1,024 KB before it counts in MB). */
const sizeText = (bytes: number, number: ReturnType<typeof usePreferences>["number"]) =>
  bytes >= 1024 * 1024
    ? `${number(bytes / 1024 / 1024, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false })} MB`
    : `${number(Math.max(1, Math.round(bytes / 1024)), { useGrouping: false })} KB`;

/** One message: who wrote it and when, its text, its files, and (mine only) its mark and any off-platform warning. */
export function MessageItem({ m, mine, otherName }: { m: ChatMessage; mine: boolean; otherName: string }) {
  const { t } = useT();
  const { dateTime, number } = usePreferences();
  // In data-saver mode an image sent in the chat is its link alone (ADR 054).
  const saver = useDataSaver();
  return (
    <li className={`chat-message ${mine ? "chat-message-mine" : "chat-message-theirs"}`} id={m.id > 0 ? `message-${m.id}` : undefined}>
      <p className="chat-message-meta">
        <span className="chat-message-sender">{mine ? t("chat.message.you") : otherName}</span> <time dateTime={m.at}>{dateTime(m.at)}</time>
      </p>
      {m.body ? <div className="chat-message-body">{m.body}</div> : null}
      {m.attachments.length ? (
        <ul className="chat-files" aria-label={t("chat.message.files")}>
          {m.attachments.map((a) => {
            const href = `/messages/${m.conversationId}/files/${a.id}`;
            return (
              <li key={a.id}>
                <a href={href} download={a.contentType.startsWith("image/") ? undefined : a.fileName}>
                  {a.contentType.startsWith("image/") && !saver ? <img src={href} alt="" width={160} loading="lazy" className="chat-thumb" /> : null}
                  <span>{a.fileName}</span>
                </a>{" "}
                <span className="chat-file-size">({sizeText(a.sizeBytes, number)})</span>
              </li>
            );
          })}
        </ul>
      ) : null}
      {mine ? <p className="chat-mark">{m.pending ? t("chat.message.sending") : t(MARK[m.status])}</p> : null}
      {mine && m.offPlatform ? (
        <p className="chat-warning" role="note">
          {t("chat.message.offPlatform")}
        </p>
      ) : null}
    </li>
  );
}

type Reply = { status?: string; error?: Record<string, string[] | null> | null; initialValue?: Record<string, unknown> | null } | undefined;

const draftKey = (conversationId: string) => `soko:draft:${conversationId}`;

function readDraft(conversationId: string): string {
  try {
    return sessionStorage.getItem(draftKey(conversationId)) ?? "";
  } catch {
    return "";
  }
}

function writeDraft(conversationId: string, text: string) {
  try {
    if (text) sessionStorage.setItem(draftKey(conversationId), text);
    else sessionStorage.removeItem(draftKey(conversationId));
  } catch {
    // Storage refused (private mode, full): the draft lives in the box only.
  }
}

/**
 * A failed send's text and client id. The send may have been stored with only its answer lost (the connection
 * dropped): sending the same text again under the same id lets the server keep one message. Kept beside the
 * draft (so also across a reload) until the text changes or a send succeeds.
 */
type Retry = { body: string; clientId: string };

const retryKey = (conversationId: string) => `soko:retry:${conversationId}`;

function readRetry(conversationId: string): Retry | null {
  try {
    const kept = JSON.parse(sessionStorage.getItem(retryKey(conversationId)) ?? "null") as Partial<Retry> | null;
    return typeof kept?.body === "string" && typeof kept.clientId === "string" ? { body: kept.body, clientId: kept.clientId } : null;
  } catch {
    return null;
  }
}

function writeRetry(conversationId: string, retry: Retry | null) {
  try {
    if (retry) sessionStorage.setItem(retryKey(conversationId), JSON.stringify(retry));
    else sessionStorage.removeItem(retryKey(conversationId));
  } catch {
    // Storage refused: the retry is remembered while the page lives (the ref).
  }
}

/**
 * The send box. Without JavaScript a multipart POST to the thread (the server redirects back). With it, text
 * goes through the socket (`onSend`), and a message with files still posts the form, in place. The box is
 * disabled only while a JavaScript page is disconnected, and what was typed stays (also across a reload:
 * the draft is kept per conversation in sessionStorage).
 */
export function SendForm({
  conversationId,
  clientId,
  connected,
  actionReply,
  onSend,
  fileHint,
  accept,
}: {
  conversationId: string;
  clientId: string;
  connected: boolean | null;
  actionReply: Reply;
  onSend: (body: string, clientId?: string) => Promise<SendResult>;
  fileHint: string;
  accept: string;
}) {
  const { t } = useT();
  const fetcher = useFetcher<Reply>();
  const navigation = useNavigation();
  const reply = (fetcher.data ?? actionReply) as Reply;
  const typed = typeof reply?.initialValue?.body === "string" ? reply.initialValue.body : "";
  const [text, setText] = useState(typed);
  const [sendError, setSendError] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const posting = useRef(false);
  const retry = useRef<Retry | null>(null);
  const keepRetry = (next: Retry | null) => {
    retry.current = next;
    writeRetry(conversationId, next);
  };

  // A draft kept from before a reload (JavaScript only: sessionStorage), with its failed send's client id.
  useEffect(() => {
    const draft = readDraft(conversationId);
    if (draft) setText((now) => now || draft);
    retry.current = readRetry(conversationId);
    setSendError(null);
  }, [conversationId]);

  // A post with files has come back: on success (a redirect, so no reply) the box and the file input empty.
  useEffect(() => {
    if (fetcher.state !== "idle" || !posting.current) return;
    posting.current = false;
    if (fetcher.data === undefined || fetcher.data?.status === "success") {
      setText("");
      writeDraft(conversationId, "");
      formRef.current?.reset();
    }
  }, [fetcher.state, fetcher.data, conversationId]);

  const errors = reply?.error ?? {};
  const bodyErrors = [...(errors.body ?? []), ...(sendError ? [sendError] : [])];
  const fileErrors = errors.files ?? [];
  const formErrors = [...(errors[""] ?? []), ...(errors.conversationId ?? []), ...(errors.clientId ?? [])];
  const disabled = connected === false;
  const busy = fetcher.state !== "idle" || (navigation.state === "submitting" && navigation.formAction?.split("?")[0] === `/messages/${conversationId}`);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const input = event.currentTarget.elements.namedItem("files") as HTMLInputElement | null;
    if (input?.files?.length || !connected) {
      // Files (or no socket yet): the form posts, in place.
      posting.current = true;
      setSendError(null);
      return;
    }
    event.preventDefault();
    const body = text.trim();
    if (!body) return setSendError(EMPTY_MESSAGE);
    setSendError(null);
    setText("");
    writeDraft(conversationId, "");
    const again = retry.current?.body === body ? retry.current.clientId : undefined;
    void onSend(body, again).then((result) => {
      if (result.ok) {
        if (retry.current?.clientId === again) keepRetry(null);
        return;
      }
      setSendError(result.message);
      setText((now) => {
        const back = now ? now : body;
        writeDraft(conversationId, back);
        // The text is back in the box: its send goes again under the same client id.
        if (back === body) keepRetry({ body, clientId: result.clientId });
        return back;
      });
    });
  };

  return (
    <fetcher.Form
      ref={formRef}
      method="post"
      action={`/messages/${conversationId}`}
      encType="multipart/form-data"
      className="chat-send"
      onSubmit={onSubmit}
      aria-label={t("chat.send.label")}
    >
      <input type="hidden" name="clientId" value={clientId} />
      <ErrorList id="chat-form-errors" errors={formErrors} />
      <label htmlFor="chat-body" className="visually-hidden">
        {t("chat.send.message")}
      </label>
      <textarea
        id="chat-body"
        name="body"
        rows={3}
        required
        maxLength={MAX_MESSAGE_CHARS}
        placeholder={t("chat.send.placeholder")}
        value={text}
        disabled={disabled}
        aria-invalid={bodyErrors.length ? true : undefined}
        aria-describedby={bodyErrors.length ? "chat-body-error" : undefined}
        onChange={(e) => {
          setText(e.target.value);
          writeDraft(conversationId, e.target.value);
          // Other text is another message: it gets a client id of its own.
          if (retry.current && e.target.value.trim() !== retry.current.body) keepRetry(null);
        }}
        onKeyDown={(e) => {
          // With a keyboard, Enter sends and Shift+Enter makes a new line. On a touch screen Enter is the only way
          // to start a new line, so there the Send button sends (as it does without JavaScript).
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && !window.matchMedia("(pointer: coarse)").matches) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <ErrorList id="chat-body-error" errors={bodyErrors} />
      <div className="chat-send-row">
        <div className="chat-files-field">
          <label htmlFor="chat-files">{t("chat.send.attach")}</label>
          <input
            id="chat-files"
            name="files"
            type="file"
            multiple
            accept={accept}
            disabled={disabled}
            aria-describedby={fileErrors.length ? "chat-files-error chat-files-hint" : "chat-files-hint"}
            aria-invalid={fileErrors.length ? true : undefined}
          />
          <p className="field-hint" id="chat-files-hint">
            {fileHint}
          </p>
          <ErrorList id="chat-files-error" errors={fileErrors} />
        </div>
        <button type="submit" className="button" disabled={disabled || busy} aria-disabled={disabled || busy}>
          {busy ? t("chat.send.sending") : t("chat.send.submit")}
        </button>
      </div>
    </fetcher.Form>
  );
}
