/**
 * Where a process's CPU went, from the profile node writes with --cpu-prof (a web process of a benchmark, started
 * with SOKO_WEB_NODE_FLAGS="--cpu-prof --cpu-prof-dir=<dir>"): self time by package or by our own module, the
 * functions with the most self time, and the inclusive time of the functions named with --focus.
 *
 *   npx tsx scripts/cpu-profile.ts <file.cpuprofile> [--top 25] [--focus sendMessage,markConversationRead] [--window 0.3,0.9]
 *
 * --window: only the samples between those shares of the profile's time (a benchmark's steady step, without its
 * start-up and shut-down).
 * Idle time is left out of the shares: they are of the time the process was busy.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { plainTable } from "./lib/bench";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; hitCount?: number; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

/** Where a frame's code lives: a package, one of our modules, node itself, or V8's own work. */
export function placeOf({ url, functionName }: CallFrame): string {
  if (!url) return functionName.startsWith("(") ? functionName : `(native) ${functionName}`;
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const [first, second] = url.slice(modules + "node_modules/".length).split("/");
    return first!.startsWith("@") ? `${first}/${second}` : first!;
  }
  if (url.startsWith("node:")) return url.replace(/^node:internal\//, "node:");
  const ours = /\/(app|build|worker|server\.ts|cluster\.ts)(\/.*)?$/.exec(url);
  return ours ? url.slice(url.indexOf(ours[1]!)) : url;
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "25" }, focus: { type: "string", default: "" }, window: { type: "string", default: "0,1" } },
  });
  const file = positionals[0];
  if (!file) throw new Error("usage: tsx scripts/cpu-profile.ts <file.cpuprofile> [--top N] [--focus a,b]");
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each sample's time is the delta that follows it (the last sample's is its own delta).
  const [from, to] = values.window.split(",").map(Number) as [number, number];
  const span = profile.endTime - profile.startTime;
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const share = (at - profile.startTime) / span;
    if (share >= from && share <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0));
  });
  const idle = [...selfUs].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((a, [, us]) => a + us, 0);
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const busy = total - idle;
  const ms = (us: number) => (us / 1000).toFixed(0);
  const share = (us: number) => `${((us / busy) * 100).toFixed(1)}%`;

  const sum = (key: (n: ProfileNode) => string) => {
    const totals = new Map<string, number>();
    for (const [id, us] of selfUs) {
      const n = byId.get(id)!;
      if (n.callFrame.functionName === "(idle)") continue;
      totals.set(key(n), (totals.get(key(n)) ?? 0) + us);
    }
    return [...totals].sort((a, b) => b[1] - a[1]);
  };
  const top = Number(values.top);
  console.log(`${file}: ${ms(total)} ms sampled, ${ms(busy)} ms busy (${((busy / total) * 100).toFixed(0)}%)\n`);
  console.log("Self time by place:");
  console.log(
    plainTable([
      ["Place", "ms", "Share"],
      ...sum((n) => placeOf(n.callFrame))
        .slice(0, top)
        .map(([k, us]) => [k, ms(us), share(us)]),
    ]).join("\n"),
  );
  console.log("\nSelf time by function:");
  const fnKey = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"} ${placeOf(n.callFrame)}:${n.callFrame.lineNumber + 1}`;
  console.log(
    plainTable([
      ["Function", "ms", "Share"],
      ...sum(fnKey)
        .slice(0, top)
        .map(([k, us]) => [k, ms(us), share(us)]),
    ]).join("\n"),
  );

  // Inclusive time of named functions: every sample with such a frame on its stack (counted once per sample).
  const focus = values.focus.split(",").filter(Boolean);
  if (focus.length) {
    const inclusive = new Map<string, number>(focus.map((f) => [f, 0]));
    for (const [id, us] of selfUs) {
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const name = byId.get(at)!.callFrame.functionName;
        if (inclusive.has(name) && !seen.has(name)) {
          seen.add(name);
          inclusive.set(name, inclusive.get(name)! + us);
        }
      }
    }
    console.log("\nInclusive time of the functions asked for (their synchronous part):");
    console.log(plainTable([["Function", "ms", "Share"], ...[...inclusive].map(([k, us]) => [k, ms(us), share(us)])]).join("\n"));
  }
}

main();
