/**
 * The message catalogues (app/locales, docs/i18n.md): every namespace in every language with the same keys,
 * each message valid ICU with the same placeholders and tags as the English, no English left in a translation,
 * and no key that no code uses (keys are written whole in the code, so a search finds every use).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { compileMessage } from "@lingui/message-utils/compileMessage";
import { describe, expect, it } from "vitest";
import { readSourceCatalogues } from "~/i18n/catalog.server";
import { LOCALES } from "~/i18n/locales";

const catalogues = readSourceCatalogues(path.resolve("app/locales"));
const english = catalogues.en;

/** The placeholders and numbered tags of a message, sorted: what a translation must keep. */
function slotsOf(message: string): string[] {
  const slots = new Set<string>();
  const tags = (text: string) => {
    for (const tag of text.matchAll(/<\/?(\d+)\/?>/g)) slots.add(`<${tag[1]}>`);
  };
  // A compiled message is a string, or a list of tokens: strings, and placeholders [name, format?, branches?].
  const walk = (compiled: unknown): void => {
    if (typeof compiled === "string") return tags(compiled);
    if (!Array.isArray(compiled)) return;
    for (const token of compiled) {
      if (typeof token === "string") tags(token);
      else if (Array.isArray(token)) {
        slots.add(`{${String(token[0])}}`);
        if (token[2] && typeof token[2] === "object") for (const branch of Object.values(token[2] as object)) walk(branch);
      }
    }
  };
  walk(compileMessage(message));
  return [...slots].sort();
}

/** Words that are the same in every language: brand and currency names, numbers, punctuation and placeholders. */
const SAME =
  /^(?:[\s\p{P}\p{S}\d]|\{[^}]*\}|<\/?\d+>|Soko|UGX|USD|MTN|MoMo|Airtel|Money|API|CSV|EAT|UTC|OK|Email|E-mail|English|Luganda|Kiswahili|Kampala|Uganda)*$/u;

/** Every file of the code that may name a key. */
function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== "locales" && name !== "node_modules") sources(file, out);
    } else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(readFileSync(file, "utf8"));
  }
  return out;
}

describe("message catalogues", () => {
  it("has every namespace in every language, with English's keys and no others, each named after its namespace", () => {
    for (const locale of LOCALES) {
      expect(Object.keys(catalogues[locale]).sort(), locale).toEqual(Object.keys(english).sort());
      for (const [namespace, messages] of Object.entries(english)) {
        expect(Object.keys(catalogues[locale][namespace]!).sort(), `${locale}/${namespace}.json`).toEqual(Object.keys(messages).sort());
      }
    }
    for (const [namespace, messages] of Object.entries(english)) {
      const misplaced = Object.keys(messages).filter((key) => !key.startsWith(`${namespace}.`));
      expect(misplaced, `keys of en/${namespace}.json not named "${namespace}.…"`).toEqual([]);
    }
  });

  it("has messages that compile, with the same placeholders and tags in every language", () => {
    const wrong: string[] = [];
    for (const [namespace, messages] of Object.entries(english)) {
      for (const [key, message] of Object.entries(messages)) {
        const slots = slotsOf(message);
        for (const locale of LOCALES) {
          const translated = catalogues[locale][namespace]![key]!;
          let theirs: string[];
          try {
            theirs = slotsOf(translated);
          } catch (e) {
            wrong.push(`${locale} ${key}: does not compile (${(e as Error).message})`);
            continue;
          }
          if (theirs.join() !== slots.join()) wrong.push(`${locale} ${key}: ${theirs.join(" ")} where English has ${slots.join(" ")}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("leaves no English in a translation: a message the same as the English is only names and numbers", () => {
    const untranslated: string[] = [];
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      for (const [namespace, messages] of Object.entries(english)) {
        for (const [key, message] of Object.entries(messages)) {
          if (catalogues[locale][namespace]![key] === message && !SAME.test(message)) untranslated.push(`${locale} ${key}: ${message}`);
        }
      }
    }
    expect(untranslated).toEqual([]);
  });

  it("has no key that no code uses", () => {
    const code = [...sources(path.resolve("app")), ...sources(path.resolve("worker")), readFileSync(path.resolve("server.ts"), "utf8")].join("\n");
    const unused: string[] = [];
    for (const messages of Object.values(english)) {
      for (const key of Object.keys(messages)) {
        if (!code.includes(`"${key}"`) && !code.includes(`'${key}'`) && !code.includes(`\`${key}\``)) unused.push(key);
      }
    }
    expect(unused).toEqual([]);
  });
});
