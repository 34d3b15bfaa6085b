/**
 * Every call of the JSON API, one list (ADR 041): the router is made from it, and so is the OpenAPI document,
 * so the two cannot disagree. Each area's calls are in app/api/calls/.
 */
import { z } from "zod";
import { openApiDocument } from "./openapi.server";
import { ANSWERED, call, type ApiCall } from "./route.server";
import { authCalls } from "./calls/auth.server";
import { gigCalls } from "./calls/gigs.server";
import { messageCalls } from "./calls/messages.server";

const documentCall = call({
  method: "get",
  path: "/openapi.json",
  operationId: "openApiDocument",
  summary: "This API's OpenAPI 3.1 document",
  tag: "Meta",
  access: "public",
  response: z.object({}).passthrough().describe("The document itself is the answer, not wrapped in `data`."),
  async handle({ res }) {
    res.json(openApiDocument(API_CALLS));
    return ANSWERED;
  },
});

export const API_CALLS: readonly ApiCall[] = [documentCall, ...authCalls, ...gigCalls, ...messageCalls];
