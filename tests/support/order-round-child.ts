/**
 * One round of the worker's order timers (worker/order-timers-job.server.ts `runOrderRound`, with the worker's own
 * providers and a pool like its own) in a process of its own, against DATABASE_URL: for
 * tests/integration/order-timers-kill.test.ts, which kills it with SIGKILL in the middle of a round, or starts
 * two at once. With ORDER_ROUND_GATE set, it connects first and waits for that file to exist, so two children
 * start their rounds at the same moment rather than a process start-up apart.
 *
 * Prints "ready" once connected, and "round {…}" with what the round did when it ends.
 */
import fs from "node:fs";
import { runOrderRound } from "../../worker/order-timers-job.server";
import { createDb } from "../../app/server/db.server";
import { getEnv } from "../../app/server/env.server";

const db = createDb(getEnv().DATABASE_URL, { min: 0, max: 2 });
await db.raw("SELECT 1");
console.log("ready");
const gate = process.env.ORDER_ROUND_GATE;
while (gate && !fs.existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 5));
const done = await runOrderRound({ db });
console.log(`round ${JSON.stringify(done)}`);
await db.destroy();
// The providers' Redis connection (the sandbox's) would keep the process alive: the round is over.
process.exit(0);
