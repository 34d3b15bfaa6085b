/**
 * One conversation: a page of its messages (oldest first; "Load older messages" is a plain link), each with
 * its sender, time, files and, for mine, the mark (Sent, Delivered, Read) and any off-platform warning; and
 * the send box. A conversation the member is not in, or none at all, is the 404 page.
 *
 * The send form posts multipart (text and files) to the action, which stores the files (images and PDFs,
 * sniffed), calls sendMessage and redirects back here (303). With JavaScript the text goes through the
 * socket instead (app/hooks/use-chat.ts) and files still post this form, in place. Opening the thread marks
 * it read: the layout's loader does that (messages.tsx) before it lists the conversations.
 */
import { randomBytes } from "node:crypto";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useOutletContext } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useRef } from "react";
import { ChatAvatar, MessageItem, SendForm } from "~/components/chat";
import { conversationFor, membership } from "~/models/conversation.server";
import { threadPage } from "~/models/message.server";
import { sendMessage } from "~/operations/messages.server";
import { requireMemberActor } from "~/server/auth.server";
import { ORDER_FILES_BODY_LIMIT } from "~/server/body-limit.server";
import { getDb } from "~/server/db.server";
import { formRefusal, readFormData, readMultipartForm, UNREADABLE_FORM } from "~/server/form-data.server";
import { actionHeaders } from "~/utils/headers";
import {
  deleteMessageFiles,
  InvalidMessageFileError,
  MAX_MESSAGE_FILE_BYTES,
  MAX_MESSAGE_FILES,
  MESSAGE_FILE_ACCEPT,
  storeMessageFiles,
} from "~/server/files/message-files.server";
import { SendMessageSchema } from "~/schemas/message";
import { cleanFileName } from "~/server/files/order-files.server";
import { formFailure } from "~/server/operation-results.server";
import { refusalInit } from "~/server/files/upload-quota.server";
import type { Chat } from "~/hooks/use-chat";
import { requestLocale } from "~/i18n/locale.server";
import { requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

export const headers = actionHeaders;

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: data ? _("chat.thread.metaTitle", { name: data.conversation.other.name }) : _("chat.meta.title") }];
};

const notFound = () => new Response("Not Found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
const MB = 1024 * 1024;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const db = getDb();
  const id = params.id ?? "";
  const beforeParam = new URL(request.url).searchParams.get("before");
  const before = beforeParam && /^\d{1,15}$/.test(beforeParam) ? Number(beforeParam) : undefined;
  const [conversation, page] = await Promise.all([conversationFor(db, id, actor.user.id), threadPage(db, id, actor.user.id, { before })]);
  // Someone else's conversation does not exist for this member.
  if (!conversation || !page) throw notFound();
  // The page's words (the `chat` namespace) come with the layout's loader (messages.tsx).
  const t = await requestT(request);
  return {
    conversation,
    messages: page.messages,
    older: page.older,
    before: before ?? null,
    // A new id for each render of the form: a double submit (or a resent POST) stores one message.
    clientId: randomBytes(12).toString("hex"),
    accept: MESSAGE_FILE_ACCEPT,
    fileHint: t("chat.send.fileHint", { max: MAX_MESSAGE_FILES, mb: MAX_MESSAGE_FILE_BYTES / MB }),
  };
}

/** The send form: multipart from the page (it may carry files), or URL-encoded from a client that sends none. */
async function readSendForm(request: Request) {
  const multipart = /^\s*multipart\/form-data\s*(;|$)/i.test(request.headers.get("Content-Type") ?? "");
  if (!multipart) return { form: await readFormData(request), files: [] as File[], oversized: [] as string[] };
  const read = await readMultipartForm(request, { maxFileBytes: MAX_MESSAGE_FILE_BYTES, maxBodyBytes: ORDER_FILES_BODY_LIMIT });
  if (read === "malformed") throw await formRefusal(request, 400, UNREADABLE_FORM);
  if (read === "too-large") return "too-large" as const;
  // The files are taken out of the form: the schema reads its words, storeMessageFiles the files. An empty
  // part is the file input with nothing chosen (browsers send it so), not a file.
  const files = read.form.getAll("files").filter((f): f is File => typeof f !== "string" && f.size > 0);
  read.form.delete("files");
  return { form: read.form, files, oversized: read.oversized };
}

/** Sends a message into this conversation (the address's, whatever the form says) and comes back to it. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const conversationId = params.id ?? "";
  // Not theirs: the 404 page, before a byte of any file is read or stored.
  if (!(await membership(getDb(), conversationId, actor.user.id))) throw notFound();
  const read = await readSendForm(request);
  const t = await requestT(request);
  if (read === "too-large") {
    return data({ status: "error", error: { files: [t("chat.send.tooLarge", { mb: MAX_MESSAGE_FILE_BYTES / MB, max: MAX_MESSAGE_FILES })] } }, { status: 413 });
  }
  const { form, files, oversized } = read;
  form.set("conversationId", conversationId);
  const submission = parseWithZod(form, { schema: SendMessageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  if (oversized.length) {
    return data(
      submission.reply({
        fieldErrors: { files: oversized.map((name) => t("chat.send.fileTooLarge", { name: cleanFileName(name), mb: MAX_MESSAGE_FILE_BYTES / MB })) },
      }),
      {
        status: 400,
      },
    );
  }
  let stored: Awaited<ReturnType<typeof storeMessageFiles>> = [];
  try {
    const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    stored = await storeMessageFiles(read, { userId: actor.user.id });
  } catch (error) {
    // A file we do not take (400), or over the sender's upload quota (429 with Retry-After): the message is not sent.
    if (error instanceof InvalidMessageFileError)
      return data(submission.reply({ fieldErrors: { files: [error.words(await requestLocale(request))] } }), refusalInit(error));
    throw error;
  }
  const result = await sendMessage(actor, { ...submission.value, attachments: stored }).catch(async (error: unknown) => {
    await deleteMessageFiles(stored);
    throw error;
  });
  if (!result.ok) {
    await deleteMessageFiles(stored);
    return formFailure(submission.reply, result, { locale: await requestLocale(request) });
  }
  // The same client id again (a resent form): the first send's message, with its own files, stands.
  if (result.value.duplicate) await deleteMessageFiles(stored);
  // The warning, if any, shows under the message itself (it is stored as off-platform), so it survives reloads.
  return redirect(`/messages/${conversationId}`, 303);
}

export default function Thread() {
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  const actionReply = useActionData<typeof action>();
  const chat = useOutletContext<Chat>();
  const { conversation } = d;
  const other = conversation.other;
  // The live thread once it is this conversation's (for one render after a navigation it is the last one's).
  const live = chat.thread.length > 0 && chat.thread.every((m) => m.conversationId === conversation.id);
  const messages = live ? chat.thread : d.messages;
  const scroller = useRef<HTMLDivElement>(null);

  // With JavaScript, a new message at the end scrolls the thread to it (without, CSS starts it at the end).
  const lastId = messages.at(-1)?.id;
  useEffect(() => {
    if (!d.before && scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight;
  }, [lastId, d.before]);

  return (
    <section className="chat-thread" aria-labelledby="thread-title">
      <header className="chat-thread-head">
        {/* Phones only (the list is beside the thread from 48em). Short on screen, named in full. */}
        <Link to="/messages" className="chat-back">
          <T id="chat.thread.back" components={{ 0: <span aria-hidden="true" />, 1: <span className="visually-hidden" /> }} />
        </Link>
        <div className="chat-thread-who">
          <ChatAvatar person={other} />
          <div>
            <h2 id="thread-title">
              <Link to={`/user/${encodeURIComponent(other.username)}`}>{other.name}</Link>
            </h2>
            {conversation.gig ? (
              <p className="chat-about">
                <T
                  id="chat.thread.aboutGig"
                  values={{ title: <>{conversation.gig.title}</> }}
                  components={{ 0: <Link to={`/gig/${conversation.gig.id}`} /> }}
                />
              </p>
            ) : conversation.orderId !== null ? (
              <p className="chat-about">
                <T id="chat.thread.aboutOrder" components={{ 0: <Link to={`/orders/${conversation.orderId}`} /> }} />
              </p>
            ) : null}
          </div>
        </div>
      </header>
      {/* A log (new messages are announced politely), focusable so a keyboard can scroll it (axe's
          scrollable-region-focusable), named after whom the conversation is with. */}
      <div className="chat-scroll" ref={scroller} role="log" tabIndex={0} aria-label={t("chat.thread.logLabel", { name: other.name })}>
        <div>
          {d.older && messages.length ? (
            <p className="chat-older">
              <Link to={`?before=${messages[0]!.id}`}>{t("chat.thread.older")}</Link>
            </p>
          ) : null}
          {d.before ? (
            <p className="chat-older">
              <Link to=".">{t("chat.thread.newest")}</Link>
            </p>
          ) : null}
          {messages.length ? (
            <ol className="chat-messages" aria-label={t("chat.thread.messagesLabel")}>
              {messages.map((m) => (
                <MessageItem key={`${m.senderId}:${m.clientId ?? m.id}`} m={m} mine={m.senderId !== other.id} otherName={other.name} />
              ))}
            </ol>
          ) : (
            <p className="chat-empty">{t("chat.thread.empty", { name: other.name })}</p>
          )}
        </div>
      </div>
      <SendForm
        key={conversation.id}
        conversationId={conversation.id}
        clientId={d.clientId}
        connected={chat.connected}
        actionReply={actionReply as Parameters<typeof SendForm>[0]["actionReply"]}
        onSend={chat.send}
        fileHint={d.fileHint}
        accept={d.accept}
      />
    </section>
  );
}
