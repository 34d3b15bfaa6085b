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
import { OFF_PLATFORM_WARNING } from "~/domain/off-platform";
import type { ChatMessage, SendResult } from "~/hooks/use-chat";
import { usePreferences } from "~/hooks/use-preferences";

const initials = (name: string) =>
  name
    .split(/\s+/)
    .slice(0, 2)
    .map((w) => w.charAt(0).toUpperCase())
    .join("") || "?";

export function ChatAvatar({ person, size = 40 }: { person: Pick<Person, "name" | "avatarKey">; size?: number }) {
  return person.avatarKey ? (
    <img className="chat-avatar" src={imageUrl(person.avatarKey, "avatar")} alt="" width={size} height={size} loading="lazy" />
  ) : (
    <span className="chat-avatar chat-avatar-initials" aria-hidden="true">
      {initials(person.name)}
    </span>
  );
}

/** The live connection, in words: shown only where JavaScript runs, since only then is there one. */
export function ConnectionStatus({ connected }: { connected: boolean | null }) {
  if (connected === null) return null;
  return (
    <p role="status" className={`chat-connection ${connected ? "chat-connected" : "chat-disconnected"}`}>
      {connected ? "Connected" : "Disconnected — reconnecting…"}
    </p>
  );
}

/** What the list shows of a conversation's last message. */
function preview(c: ConversationSummary, me: number): string {
  const m = c.lastMessage;
  if (!m) return "No messages yet";
  const text = m.type === "file" && !m.body ? "Sent a file" : m.body;
  return m.senderId === me ? `You: ${text}` : text;
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
  const { date, dateTime } = usePreferences();
  const today = date(new Date());
  // Today's messages by their time ("09:53 EAT"), older ones by their day: the list's column is narrow.
  const when = (at: string) => (date(at) === today ? dateTime(at).split(", ").pop()! : date(at));
  const suffix = q ? `?q=${encodeURIComponent(q)}` : "";
  return (
    <nav className="chat-list" aria-label="Conversations">
      <Form method="get" action="/messages" className="chat-search" role="search">
        <label htmlFor="chat-q" className="visually-hidden">
          Search conversations
        </label>
        <input id="chat-q" name="q" type="search" defaultValue={q} maxLength={100} placeholder="Search names and messages" />
        <button type="submit" className="button button-small">
          Search
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
                  <span className="chat-conversation-last">{preview(c, me)}</span>
                </span>
                <span className="chat-conversation-meta">
                  {c.lastMessage ? (
                    <time dateTime={c.lastMessage.at} title={dateTime(c.lastMessage.at)}>
                      {when(c.lastMessage.at)}
                    </time>
                  ) : null}
                  {c.unreadCount > 0 ? (
                    <span className="chat-unread" data-testid="unread-count">
                      {c.unreadCount}
                      <span className="visually-hidden"> unread</span>
                    </span>
                  ) : null}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : (
        <p className="chat-empty">{searched ? "No results found" : "No conversations yet"}</p>
      )}
      {nextPage ? (
        <p className="chat-more">
          <Link to={nextPage}>More conversations</Link>
        </p>
      ) : null}
    </nav>
  );
}

const MARK: Record<ChatMessage["status"], string> = { sent: "Sent", delivered: "Delivered", read: "Read" };

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** One message: who wrote it and when, its text, its files, and (mine only) its mark and any off-platform warning. */
export function MessageItem({ m, mine, otherName }: { m: ChatMessage; mine: boolean; otherName: string }) {
  const { dateTime } = usePreferences();
  return (
    <li className={`chat-message ${mine ? "chat-message-mine" : "chat-message-theirs"}`} id={m.id > 0 ? `message-${m.id}` : undefined}>
      <p className="chat-message-meta">
        <span className="chat-message-sender">{mine ? "You" : otherName}</span> <time dateTime={m.at}>{dateTime(m.at)}</time>
      </p>
      {m.body ? <div className="chat-message-body">{m.body}</div> : null}
      {m.attachments.length ? (
        <ul className="chat-files" aria-label="Files">
          {m.attachments.map((a) => {
            const href = `/messages/${m.conversationId}/files/${a.id}`;
            return (
              <li key={a.id}>
                <a href={href} download={a.contentType.startsWith("image/") ? undefined : a.fileName}>
                  {a.contentType.startsWith("image/") ? <img src={href} alt="" width={160} loading="lazy" className="chat-thumb" /> : null}
                  <span>{a.fileName}</span>
                </a>{" "}
                <span className="chat-file-size">({sizeText(a.sizeBytes)})</span>
              </li>
            );
          })}
        </ul>
      ) : null}
      {mine ? <p className="chat-mark">{m.pending ? "Sending…" : MARK[m.status]}</p> : null}
      {mine && m.offPlatform ? (
        <p className="chat-warning" role="note">
          {OFF_PLATFORM_WARNING}
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
      aria-label="Send a message"
    >
      <input type="hidden" name="clientId" value={clientId} />
      {formErrors.length ? (
        <ul className="field-errors" role="alert" id="chat-form-errors">
          {formErrors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
      <label htmlFor="chat-body" className="visually-hidden">
        Message
      </label>
      <textarea
        id="chat-body"
        name="body"
        rows={3}
        required
        maxLength={MAX_MESSAGE_CHARS}
        placeholder="Write a message"
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
      {bodyErrors.length ? (
        <ul className="field-errors" role="alert" id="chat-body-error">
          {bodyErrors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
      <div className="chat-send-row">
        <div className="chat-files-field">
          <label htmlFor="chat-files">Attach files (optional)</label>
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
          {fileErrors.length ? (
            <ul className="field-errors" role="alert" id="chat-files-error">
              {fileErrors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
          ) : null}
        </div>
        <button type="submit" className="button" disabled={disabled || busy} aria-disabled={disabled || busy}>
          {busy ? "Sending…" : "Send"}
        </button>
      </div>
    </fetcher.Form>
  );
}
