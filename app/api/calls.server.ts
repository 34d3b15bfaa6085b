/**
 * Every call of the JSON API, one list (ADR 041): the router is made from it, and so is the OpenAPI document,
 * so the two cannot disagree. Each area's calls are in app/api/calls/.
 */
import { z } from "zod";
import { openApiDocument } from "./openapi.server";
import { ANSWERED, call, type ApiCall } from "./route.server";
import { authCalls } from "./calls/auth.server";
import { orderCalls } from "./calls/orders.server";
import { notificationCalls } from "./calls/notifications.server";
import { reviewCalls } from "./calls/reviews.server";
import { messageCalls } from "./calls/messages.server";
import { adminCalls } from "./calls/admin.server";
import { gigCalls } from "./calls/gigs.server";
import { uploadCalls } from "./calls/uploads.server";
import { userCalls } from "./calls/users.server";
import { fileCalls } from "./calls/files.server";

const documentCall = call({
  method: "get",
  path: "/openapi.json",
  operationId: "openApiDocument",
  summary: "This API's OpenAPI 3.1 document",
  tag: "Meta",
  access: "public",
  produces: "application/json",
  response: z
    .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.record(z.unknown()) })
    .passthrough()
    .describe("The document itself, not wrapped in `data`."),
  async handle({ res }) {
    res.json(openApiDocument(API_CALLS));
    return ANSWERED;
  },
});

export const API_CALLS: readonly ApiCall[] = [
  documentCall,
  ...authCalls,
  ...orderCalls,
  ...reviewCalls,
  ...notificationCalls,
  ...messageCalls,
  ...adminCalls,
  ...gigCalls,
  ...userCalls,
  ...uploadCalls,
  ...fileCalls,
];
