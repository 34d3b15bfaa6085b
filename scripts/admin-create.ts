/**
 * Makes an administrator account from the command line (the only way, outside demo data, to get one).
 *   npm run admin:create -- --name "Grace Admin" --email grace@example.com
 * The password is asked for on the terminal (not echoed), or read from ADMIN_PASSWORD for scripts.
 */
import { parseArgs } from "node:util";
import readline from "node:readline";
import { z } from "zod";
import { createAdmin } from "~/operations/accounts.server";
import { systemActor } from "~/operations/core.server";
import { newPassword } from "~/schemas/account";
import { closeDb } from "~/server/db.server";
import { issueMessages, messageOf, sayIn } from "~/content/operation-messages";
import { sayMessage } from "~/i18n/message-key";

const { values } = parseArgs({ options: { name: { type: "string" }, email: { type: "string" } } });

async function ask(question: string, hidden = false): Promise<string> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  if (hidden) {
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput.bind(rl);
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => write(s.startsWith(question) ? s : "");
  }
  const answer = await new Promise<string>((resolve) => rl.question(question, resolve));
  rl.close();
  if (hidden) process.stdout.write("\n");
  return answer;
}

const Input = z.object({
  name: z.string().trim().min(2, "a name of at least 2 characters").max(100),
  email: z.string().trim().email("a valid email address").max(254),
  password: newPassword,
});

const parsed = Input.safeParse({
  name: values.name ?? (await ask("Name: ")),
  email: values.email ?? (await ask("Email: ")),
  password: process.env.ADMIN_PASSWORD ?? (await ask("Password (at least 8 characters): ", true)),
});
if (!parsed.success) {
  // A schema's message may be a key (app/i18n/message-key.ts): said in English, as the rest of this script's output.
  const say = sayIn();
  for (const issue of parsed.error.issues) console.error(`[admin:create] ${issue.path.join(".")}: ${sayMessage(say, issue.message)}`);
  process.exit(2);
}
try {
  const result = await createAdmin(systemActor("admin:create"), parsed.data);
  if (result.ok) {
    console.log(`[admin:create] administrator ${parsed.data.email} (@${result.value.username}) created; sign in on the admin host.`);
  } else {
    const messages = result.error === "invalid" ? Object.values(issueMessages(result.issues)).flat() : [messageOf(result)];
    for (const message of messages) console.error(`[admin:create] ${message}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`[admin:create] ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await closeDb();
}
