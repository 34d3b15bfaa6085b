/**
 * A member's messages (docs/product.md, Messages): the conversation list (searched on the server, paged)
 * beside the outlet, which is either nothing chosen (messages._index.tsx) or a thread (messages.$id.tsx).
 * The page is whole without JavaScript; with it, app/hooks/use-chat.ts keeps list and thread live, and the
 * thread reads that state through the outlet's context.
 *
 * The action here starts a conversation (Contact Seller on a gig, Contact on a profile or an order), or
 * finds the pair's one, and goes to it. The admin host's /messages is message monitoring (app/admin/).
 */
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Outlet, useActionData, useLoaderData, useParams, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { ConnectionStatus, ConversationList } from "~/components/chat";
import { listConversations } from "~/models/conversation.server";
import { headerCounts } from "~/models/notification.server";
import { markConversationRead, markDelivered, startConversation } from "~/operations/messages.server";
import { requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { actionHeaders } from "~/utils/headers";
import { ConversationListSchema, listCursor, MarkSchema, StartConversationSchema } from "~/schemas/message";
import { formFailure } from "~/server/operation-results.server";
import { useChat, type Chat } from "~/hooks/use-chat";
import chatStylesUrl from "~/styles/chat.css?url";
import type { loader as threadLoader } from "~/routes/messages.$id";
import { ErrorList } from "~/components/forms";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: chatStylesUrl }];

export const headers = actionHeaders;

export const meta: MetaFunction = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("chat.meta.title") }];
};

/** The thread route's id, to read its loader data here (the live state of both lives in this layout). */
const THREAD_ROUTE = "routes/messages.$id";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const url = new URL(request.url);
  const parsed = ConversationListSchema.safeParse({ q: url.searchParams.get("q") ?? undefined, before: url.searchParams.get("before") ?? undefined });
  const { q, before } = parsed.success ? parsed.data : { q: "", before: undefined };

  // No GET changes data (docs/architecture.md); these two are the exception, made on purpose. Like an email
  // client marking mail read when it is opened, this page is the member receiving and reading their own
  // messages: nobody else can cause it, it is idempotent, and it only moves marks forward. Both go through
  // the operations (the senders' pages see the marks live). The open thread is read before the list is
  // loaded, so its unread count is already 0 in the list.
  await markDelivered(actor, {});
  const open = params.id ? MarkSchema.safeParse({ conversationId: params.id }) : null;
  // A conversation the member is not in answers not_found here and the thread's loader answers 404.
  if (open?.success) await markConversationRead(actor, open.data);

  const { conversations, more } = await listConversations(getDb(), actor.user.id, { q, before });
  const last = conversations.at(-1);
  const next = new URLSearchParams();
  if (q) next.set("q", q);
  if (more && last) next.set("before", listCursor(last));
  return {
    me: actor.user.id,
    // The header's counts after this page's reading (the root loader counted at the same time).
    headerCounts: await headerCounts(getDb(), actor.user.id),
    q,
    paged: before !== undefined,
    conversations,
    nextBefore: more && last ? next.toString() : null,
    // The words of the layout, the list and whichever child shows (no thread, a thread): the `chat` namespace.
    ...(await pageMessages(request, ["chat"])),
  };
}

/** Starts (or finds) the conversation with another member and goes to it: POST, redirect, GET. */
export async function action({ request, context }: ActionFunctionArgs) {
  // A visitor is sent to sign in ('User not authenticated').
  const actor = await requireMemberActor(request, context.clientIp);
  const form = await readFormData(request);
  if (form.get("intent") !== "start") {
    const t = await requestT(request);
    throw new Response(t("chat.start.noRecipient"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const submission = parseWithZod(form, { schema: StartConversationSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await startConversation(actor, submission.value);
  if (!result.ok) return formFailure(submission.reply, result, { locale: await requestLocale(request) });
  return redirect(`/messages/${result.value.conversationId}`, 303);
}

export default function Messages() {
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  const started = useActionData<typeof action>();
  const params = useParams();
  const [search] = useSearchParams();
  // On a phone one side shows at a time: a thread, or the offer to start one, rather than the list.
  const focused = Boolean(params.id) || ["to", "gig", "order"].some((name) => search.has(name));
  const thread = useRouteLoaderData<typeof threadLoader>(THREAD_ROUTE);
  const openId = params.id && thread?.conversation.id === params.id ? params.id : null;
  const chat: Chat = useChat({
    me: d.me,
    conversations: d.conversations,
    filtered: Boolean(d.q) || d.paged,
    open: openId && thread ? { id: openId, messages: thread.messages, newest: !thread.before } : null,
  });
  const startErrors =
    started && "error" in started && started.error
      ? Object.values(started.error)
          .flat()
          .filter((e): e is string => typeof e === "string")
      : [];

  return (
    <section className={`container chat-page${focused ? " chat-page-thread" : ""}`} aria-labelledby="messages-title">
      <div className="chat-page-head">
        <h1 id="messages-title">{t("chat.page.title")}</h1>
        <ConnectionStatus connected={chat.connected} />
      </div>
      <ErrorList id="start-errors" errors={startErrors} />
      <div className="chat-panel">
        <ConversationList
          conversations={chat.conversations}
          me={d.me}
          selectedId={params.id ?? null}
          q={d.q}
          searched={Boolean(d.q) || d.paged}
          nextPage={d.nextBefore ? `?${d.nextBefore}` : null}
        />
        <div className="chat-main">
          <Outlet context={chat} />
        </div>
      </div>
    </section>
  );
}
