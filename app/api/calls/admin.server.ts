/**
 * Every admin call (ADR 017, ADR 041), one list for app/api/calls.server.ts: members, message monitoring and
 * the figures. Admins' tokens only: the router answers any other token 403 `token.admins_only`.
 */
import { adminAnalyticsCalls } from "./admin-analytics.server";
import { adminConversationCalls } from "./admin-conversations.server";
import { adminInsightCalls } from "./admin-insights.server";
import { adminUserCalls } from "./admin-users.server";

export const adminCalls = [...adminUserCalls, ...adminConversationCalls, ...adminAnalyticsCalls, ...adminInsightCalls];
