/**
 * Stored files for apps (ADR 041): a message's attachment and an order's file (requirements, deliveries), for the
 * same members the pages' download routes allow, by Bearer token. Anyone else meets a 404, as for a file that
 * does not exist. The bytes are streamed from the file store with the type sniffed when the file was stored, always as an
 * attachment, never inline.
 */
import { Readable } from "node:stream";
import type { Response as ExpressResponse } from "express";
import { z } from "zod";
import { findAttachment } from "~/models/message.server";
import { findOrderFile } from "~/models/order.server";
import { notFound } from "~/operations/core.server";
import { getDb } from "~/server/db.server";
import { storedFileResponse } from "~/server/files/file-response.server";
import { conversationId } from "~/schemas/message";
import { ANSWERED, call } from "../route.server";
import { msg } from "~/i18n/message-key";

const FileId = z.coerce
  .number({ invalid_type_error: msg("api.field.number", { field: "fileId" }) })
  .int()
  .positive()
  .max(2 ** 53);
const FileBytes = z.string().describe("The file's bytes, with its type as Content-Type and its name in Content-Disposition.");

/** Streams a stored file as the answer; false when it is gone from the store (a row that outlived its file). */
async function sendStoredFile(res: ExpressResponse, file: { storageKey: string; contentType: string; fileName: string }): Promise<boolean> {
  const answer = await storedFileResponse({ storageKey: file.storageKey, contentType: file.contentType, fileName: file.fileName });
  if (!answer) return false;
  res.status(200);
  answer.headers.forEach((value, name) => res.setHeader(name, value));
  Readable.fromWeb(answer.body! as import("node:stream/web").ReadableStream).pipe(res);
  return true;
}

export const fileCalls = [
  call({
    method: "get",
    path: "/messages/{id}/files/{fileId}",
    operationId: "downloadMessageFile",
    summary: "Download a message's attachment",
    description: "For the conversation's two members; anyone else gets 404.",
    tag: "Messages",
    access: "member",
    params: z.object({ id: conversationId, fileId: FileId }),
    produces: "application/octet-stream",
    response: FileBytes,
    failures: [404],
    async handle({ actor, params, res }) {
      if (actor.kind !== "member") return notFound();
      const file = await findAttachment(getDb(), params.fileId, actor.user.id, params.id);
      return file && (await sendStoredFile(res, file)) ? ANSWERED : notFound();
    },
  }),
  call({
    method: "get",
    path: "/orders/{id}/files/{fileId}",
    operationId: "downloadOrderFile",
    summary: "Download an order's file (the buyer's requirements, a delivery)",
    description: "For the order's two parties; anyone else gets 404.",
    tag: "Orders",
    access: "member",
    params: z.object({
      id: z.coerce
        .number({ invalid_type_error: msg("api.field.number", { field: "id" }) })
        .int()
        .positive()
        .max(2 ** 53),
      fileId: FileId,
    }),
    produces: "application/octet-stream",
    response: FileBytes,
    failures: [404],
    async handle({ actor, params, res }) {
      if (actor.kind !== "member") return notFound();
      const file = await findOrderFile(getDb(), params.id, params.fileId, { id: actor.user.id, isAdmin: false });
      return file && (await sendStoredFile(res, file)) ? ANSWERED : notFound();
    },
  }),
];
