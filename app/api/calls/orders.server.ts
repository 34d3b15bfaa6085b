/**
 * The Orders and Earnings calls of the JSON API (ADR 041), one list for app/api/calls.server.ts: reading orders
 * (orders-read), moving them on (orders-write), and the member's balance and payouts (earnings).
 */
import { earningsCalls } from "./earnings.server";
import { orderReadCalls } from "./orders-read.server";
import { orderWriteCalls } from "./orders-write.server";

export const orderCalls = [...orderReadCalls, ...orderWriteCalls, ...earningsCalls];
