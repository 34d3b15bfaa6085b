/** The Gigs and Categories calls (ADR 041), as one list for app/api/calls.server.ts. */
import { categoryCalls } from "./categories.server";
import { gigReadCalls } from "./gigs-read.server";
import { gigWriteCalls } from "./gigs-write.server";

export const gigCalls = [...gigReadCalls, ...gigWriteCalls, ...categoryCalls];
