/**
 * Categories as reference data (ADR 026): a database migrated without the seed, as docker-compose's `migrate`
 * does, has the six categories; the admin operations that add, rename, reorder, hide, show and delete them
 * (admins only, each with its audit row, bad input changing nothing); and, through the built server with
 * JavaScript off, the admin screen's forms and what a hidden category leaves of browsing and the gig form.
 */
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import nodeHttp from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listCategories, listCategoryOptions } from "~/models/category.server";
import { getSessionUser } from "~/models/session.server";
import { addCategory, deleteCategory, moveCategory, renameCategory, setCategoryHidden } from "~/operations/categories.server";
import type { Actor, Client } from "~/operations/core.server";
import { saveGig } from "~/operations/gigs.server";
import { AddCategorySchema, NAME_REQUIRED, NAME_TAKEN, NAME_TOO_LONG, RenameCategorySchema, TRANSLATION_NEEDS_NAME } from "~/schemas/category";
import { gigFormSchema } from "~/schemas/gig";
import { closeRedis } from "~/server/redis.server";
import { migratePostgres } from "../../scripts/lib/migrate";
import { isDatabaseEmpty } from "../../scripts/lib/seed";
import { createEmptyDatabase, createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { gigFormData, VALID_GIG_FIELDS } from "../support/gig-form";
import { decode } from "../support/html";
import { startTestServer, type TestServer } from "../support/test-server";
import { messageOf } from "~/content/operation-messages";
import { words } from "../support/words";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_categories_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

const SIX = [
  ["graphics-design", "Graphics & Design"],
  ["web-development", "Web Development"],
  ["writing-translation", "Writing & Translation"],
  ["video-animation", "Video & Animation"],
  ["digital-marketing", "Digital Marketing"],
  ["local-services", "Local Services"],
];

const categoryRows = (db: TestDatabase["db"]) =>
  db("categories")
    .orderBy([{ column: "position" }, { column: "id" }])
    .select("slug", "name", "description", "hidden");

describe("a database migrated without the seed", () => {
  let empty: TestDatabase;
  beforeAll(async () => {
    empty = await createEmptyDatabase();
  });
  afterAll(() => empty?.drop());

  it("has the six categories with their slugs, in the landing page's order, and nothing else: the seed still counts it empty", async () => {
    // As docker-compose's `migrate` service runs it: scripts/migrate.ts without --seed.
    const env = { ...process.env, DATABASE_URL: empty.url, CLICKHOUSE_DATABASE: await createTestClickHouseDatabase("soko_cat"), QUEUE_PREFIX: prefix };
    await promisify(execFile)(path.resolve("node_modules/.bin/tsx"), ["scripts/migrate.ts"], { env });
    const rows = await categoryRows(empty.db);
    expect(rows.map((r) => [r.slug, r.name])).toEqual(SIX);
    for (const r of rows) {
      expect(r.description.length, r.slug).toBeGreaterThan(10);
      expect(r.hidden).toBe(false);
    }
    expect(await isDatabaseEmpty(empty.db)).toBe(true);
    // A second run applies nothing and adds nothing.
    expect(await migratePostgres(empty.db)).toEqual([]);
    expect(await categoryRows(empty.db)).toEqual(rows);
  });
});

describe("the migration over a database the seed had filled", () => {
  let old: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    old = await createEmptyDatabase();
    // Inside the checkout (ignored by git): the test runner loads TypeScript only from under its root.
    await fs.mkdir(".data", { recursive: true });
    dir = await fs.mkdtemp(path.join(path.resolve(".data"), "migrations-before-"));
  });
  afterAll(async () => {
    await old?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("keeps the categories already there (renamed or not) and adds none twice", async () => {
    // The migrations before this one, then the categories as the seed inserted them, one renamed since.
    const files = (await fs.readdir("migrations")).filter((f) => f.endsWith(".ts") && f < "20261206000001");
    for (const f of files) await fs.copyFile(path.join("migrations", f), path.join(dir, f));
    await migratePostgres(old.db, dir);
    await old.db("categories").insert([
      { slug: "graphics-design", name: "Design", description: "Renamed by hand.", position: 0 },
      { slug: "web-development", name: "Web Development", description: "Websites, online shops and web apps.", position: 1 },
    ]);
    expect(await migratePostgres(old.db)).toContain("20261206000001_category_reference_data.ts");
    const rows = await categoryRows(old.db);
    expect(rows.map((r) => r.slug)).toEqual(SIX.map(([slug]) => slug));
    expect(rows[0]).toMatchObject({ name: "Design", description: "Renamed by hand." });
  });
});

const CLIENT: Client = { ip: "203.0.113.7", userAgent: "vitest", analyticsConsent: false, tabSessionId: null };

describe("category operations and screens", () => {
  let t: TestDatabase;
  let server: TestServer;
  let admin: TestUser;
  let seller: TestUser;
  let adminActor: Actor;
  let sellerActor: Actor;
  const tokens: Record<string, string> = {};
  const opts = () => ({ db: t.db });

  async function actorOf(u: TestUser): Promise<Actor> {
    const token = await createSession(t.db, u.id);
    return { kind: "member", user: (await getSessionUser(t.db, token))!, client: CLIENT };
  }
  const idOf = async (slug: string) => Number((await t.db("categories").where({ slug }).first("id")).id);
  const slugsInOrder = async () => (await categoryRows(t.db)).map((r) => r.slug);
  const auditRows = () => t.db("admin_audit_log").where({ target_type: "category" }).orderBy("id").select("action", "target_id", "admin_id", "details", "ip");

  beforeAll(async () => {
    t = await createTestDatabase();
    admin = await createUser(t.db, { role: "admin", name: "Cat Admin" });
    seller = await createUser(t.db, { role: "freelancer", name: "Cat Seller" });
    adminActor = await actorOf(admin);
    sellerActor = await actorOf(seller);
    tokens.admin = await createSession(t.db, admin.id);
    tokens.seller = await createSession(t.db, seller.id);
    server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix });
  });
  afterAll(async () => {
    await server?.stop();
    await closeRedis();
    await t?.drop();
  });

  /** A request to the server as a browser without JavaScript sends it. */
  async function http(urlPath: string, { who, form, multipart }: { who?: "admin" | "seller"; form?: Record<string, string>; multipart?: FormData } = {}) {
    const headers: Record<string, string> = {};
    if (who) headers.Cookie = `soko_session=${tokens[who]}`;
    let body: string | FormData | undefined;
    if (form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(form).toString();
    } else if (multipart) body = multipart;
    if (body) headers.Origin = server.baseUrl;
    const res = await fetch(`${server.baseUrl}${urlPath}`, { method: body ? "POST" : "GET", headers, body, redirect: "manual" });
    return { status: res.status, location: res.headers.get("location"), html: decode(await res.text()) };
  }

  /** A GET on the admin host (its name in the Host header), as the admin. */
  function adminHostGet(target: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = nodeHttp.request(
        { host: "127.0.0.1", port: server.port, path: target, headers: { Host: new URL(server.adminUrl).host, Cookie: `soko_session=${tokens.admin}` } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  describe("the operations", () => {
    it("add a category at the end with a slug from its name, shown, with its audit row", async () => {
      const added = await addCategory(
        adminActor,
        AddCategorySchema.parse({ intent: "add", name: "  Music & Audio ", description: "Jingles, voice-overs and mixing." }),
        opts(),
      );
      expect(added).toEqual({ ok: true, value: { id: expect.any(Number), slug: "music-audio" } });
      expect(await slugsInOrder()).toEqual([...SIX.map(([s]) => s), "music-audio"]);
      expect((await listCategoryOptions(t.db)).map((c) => c.name)).toContain("Music & Audio");
      expect(await auditRows()).toEqual([
        {
          action: "category.add",
          target_id: String(added.ok && added.value.id),
          admin_id: admin.id,
          details: { name: "Music & Audio", slug: "music-audio" },
          ip: "203.0.113.7",
        },
      ]);
    });

    it("refuse a duplicate name (in any case), an empty or too long one, and anyone but an admin, changing nothing", async () => {
      const before = await categoryRows(t.db);
      const audits = (await auditRows()).length;
      expect(await addCategory(adminActor, AddCategorySchema.parse({ intent: "add", name: "web development" }), opts())).toEqual({
        ok: false,
        error: "invalid",
        issues: { name: [{ code: "category.name_taken", params: {} }] },
      });
      expect(await addCategory(adminActor, AddCategorySchema.parse({ intent: "add", name: "&&&" }), opts())).toMatchObject({ ok: false, error: "invalid" });
      expect(await addCategory(sellerActor, AddCategorySchema.parse({ intent: "add", name: "Sneaky" }), opts())).toMatchObject({
        ok: false,
        error: "forbidden",
      });
      const web = await idOf("web-development");
      expect(
        await renameCategory(adminActor, RenameCategorySchema.parse({ intent: "rename", categoryId: String(web), name: "GRAPHICS & DESIGN" }), opts()),
      ).toEqual({ ok: false, error: "invalid", issues: { name: [{ code: "category.name_taken", params: {} }] } });
      expect(await renameCategory(sellerActor, RenameCategorySchema.parse({ intent: "rename", categoryId: String(web), name: "Mine" }), opts())).toMatchObject({
        ok: false,
        error: "forbidden",
      });
      expect(await moveCategory(sellerActor, { intent: "move", categoryId: web, direction: "up" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await setCategoryHidden(sellerActor, { intent: "hide", categoryId: web }, opts())).toMatchObject({ ok: false, error: "forbidden" });
      expect(await deleteCategory(sellerActor, { intent: "delete", categoryId: await idOf("music-audio") }, opts())).toMatchObject({
        ok: false,
        error: "forbidden",
      });
      expect(await renameCategory(adminActor, RenameCategorySchema.parse({ intent: "rename", categoryId: 999_999, name: "Ghost" }), opts())).toMatchObject({
        ok: false,
        error: "not_found",
      });
      // The schema's own refusals, as the form shows them.
      expect(AddCategorySchema.safeParse({ intent: "add", name: "   " }).error?.issues.map((i) => i.message)).toEqual([NAME_REQUIRED]);
      expect(AddCategorySchema.safeParse({ intent: "add", name: "x".repeat(51) }).error?.issues.map((i) => i.message)).toEqual([NAME_TOO_LONG]);
      expect(await categoryRows(t.db)).toEqual(before);
      expect(await auditRows()).toHaveLength(audits);
    });

    it("rename a category's name and description, keeping its slug", async () => {
      const web = await idOf("web-development");
      const result = await renameCategory(
        adminActor,
        RenameCategorySchema.parse({ intent: "rename", categoryId: String(web), name: "Websites & Apps", description: "Sites, shops and apps." }),
        opts(),
      );
      expect(result).toEqual({ ok: true, value: { id: web } });
      expect(await t.db("categories").where({ id: web }).first("slug", "name", "description")).toEqual({
        slug: "web-development",
        name: "Websites & Apps",
        description: "Sites, shops and apps.",
      });
      expect((await auditRows()).at(-1)).toMatchObject({
        action: "category.rename",
        target_id: String(web),
        details: { slug: "web-development", from: "Web Development", to: "Websites & Apps", description: "Sites, shops and apps." },
      });
      await renameCategory(
        adminActor,
        RenameCategorySchema.parse({ intent: "rename", categoryId: String(web), name: "Web Development", description: "Websites, online shops and web apps." }),
        opts(),
      );
    });

    it("give two admins renaming two categories to one name at once one success and one 'taken', never an error", async () => {
      const [writing, video] = [await idOf("writing-translation"), await idOf("video-animation")];
      const rename = (categoryId: number) =>
        renameCategory(adminActor, RenameCategorySchema.parse({ intent: "rename", categoryId: String(categoryId), name: "Words & Pictures" }), opts());
      const results = await Promise.all([rename(writing), rename(video)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, error: "invalid", issues: { name: [{ code: "category.name_taken", params: {} }] } }]);
      expect(await t.db("categories").whereRaw("lower(name) = lower(?)", ["Words & Pictures"]).pluck("name")).toEqual(["Words & Pictures"]);
      // Back as they were, for the tests after this one.
      await t.db("categories").where({ id: writing }).update({ name: "Writing & Translation" });
      await t.db("categories").where({ id: video }).update({ name: "Video & Animation" });
    });

    it("move a category up and down one place; the first cannot go up", async () => {
      const local = await idOf("local-services");
      expect(await moveCategory(adminActor, { intent: "move", categoryId: local, direction: "up" }, opts())).toEqual({
        ok: true,
        value: { id: local, moved: true },
      });
      expect((await slugsInOrder()).slice(4, 6)).toEqual(["local-services", "digital-marketing"]);
      expect((await listCategories(t.db)).map((c) => c.slug).slice(4, 6)).toEqual(["local-services", "digital-marketing"]);
      await moveCategory(adminActor, { intent: "move", categoryId: local, direction: "down" }, opts());
      expect((await slugsInOrder()).slice(4, 6)).toEqual(["digital-marketing", "local-services"]);
      const audits = (await auditRows()).length;
      expect(await moveCategory(adminActor, { intent: "move", categoryId: await idOf("graphics-design"), direction: "up" }, opts())).toMatchObject({
        ok: true,
        value: { moved: false },
      });
      expect(await auditRows()).toHaveLength(audits);
      expect((await auditRows()).at(-1)).toMatchObject({ action: "category.move", details: { name: "Local Services", direction: "down", from: 5, to: 6 } });
    });

    it("hide a category from browsing and the gig form, and show it again", async () => {
      const video = await idOf("video-animation");
      expect(await setCategoryHidden(adminActor, { intent: "hide", categoryId: video }, opts())).toEqual({ ok: true, value: { id: video, hidden: true } });
      expect((await listCategories(t.db)).map((c) => c.slug)).not.toContain("video-animation");
      expect((await listCategoryOptions(t.db)).map((c) => c.slug)).not.toContain("video-animation");
      expect((await listCategoryOptions(t.db, { include: "video-animation" })).map((c) => c.slug)).toContain("video-animation");
      expect(await setCategoryHidden(adminActor, { intent: "show", categoryId: video }, opts())).toEqual({ ok: true, value: { id: video, hidden: false } });
      expect((await listCategories(t.db)).map((c) => c.slug)).toContain("video-animation");
      expect((await auditRows()).slice(-2).map((a) => a.action)).toEqual(["category.hide", "category.show"]);
    });

    it("delete a category no gig uses, and refuse one with a gig (even a draft), which stays", async () => {
      const music = await idOf("music-audio");
      await createGig(t.db, { sellerId: seller.id, category: "music-audio", status: "draft", title: "A jingle for your shop" });
      expect(await deleteCategory(adminActor, { intent: "delete", categoryId: music }, opts())).toEqual({
        ok: false,
        error: "conflict",
        code: "category.has_gigs",
        params: {},
      });
      expect(await idOf("music-audio")).toBe(music);
      await t.db("gigs").where({ category_id: music }).delete();
      expect(await deleteCategory(adminActor, { intent: "delete", categoryId: music }, opts())).toEqual({
        ok: true,
        value: { id: music, name: "Music & Audio" },
      });
      expect(await t.db("categories").where({ id: music }).first()).toBeUndefined();
      expect((await auditRows()).at(-1)).toMatchObject({
        action: "category.delete",
        target_id: String(music),
        details: { name: "Music & Audio", slug: "music-audio" },
      });
    });

    it("keep a gig in a hidden category there when its seller saves it, but refuse a hidden category for a new gig or a move", async () => {
      const { id: gigId } = await createGig(t.db, { sellerId: seller.id, category: "local-services", title: "Event photography in Kampala" });
      const local = await idOf("local-services");
      await setCategoryHidden(adminActor, { intent: "hide", categoryId: local }, opts());
      try {
        const gig = (category: string) =>
          gigFormSchema("publish").parse({
            title: "Event photography in Kampala",
            category,
            description: "A day of photographs.",
            basic: { price: "75000", delivery: "3" },
            standard: {},
            premium: {},
          });
        expect(await saveGig(sellerActor, { intent: "publish", gig: gig("local-services"), gigId }, opts())).toMatchObject({ ok: true });
        expect(await saveGig(sellerActor, { intent: "publish", gig: gig("local-services") }, opts())).toMatchObject({
          ok: false,
          error: "invalid",
          issues: { category: [{ code: "gig.category_unknown", params: {} }] },
        });
        const { id: other } = await createGig(t.db, { sellerId: seller.id, category: "graphics-design", title: "Posters" });
        expect(await saveGig(sellerActor, { intent: "publish", gig: gig("local-services"), gigId: other }, opts())).toMatchObject({
          ok: false,
          error: "invalid",
        });
        expect((await t.db("gigs").where({ id: other }).first("category_id")).category_id).toBe(await idOf("graphics-design"));
      } finally {
        await setCategoryHidden(adminActor, { intent: "show", categoryId: local }, opts());
      }
    });
  });

  describe("the admin screen, without JavaScript", () => {
    it("is the admin's only: a freelancer is sent away, and a post changes nothing", async () => {
      const before = await categoryRows(t.db);
      expect((await http("/admin/categories", { who: "seller" })).status).not.toBe(200);
      expect((await http("/admin/categories", { who: "seller", form: { intent: "add", name: "Sneaky" } })).status).not.toBe(303);
      expect(await categoryRows(t.db)).toEqual(before);
    });

    it("lists the categories with their gigs, and the admin host serves it at /categories", async () => {
      const page = await http("/admin/categories", { who: "admin" });
      expect(page.status).toBe(200);
      expect(page.html).toContain('<h1 id="categories-title">Categories</h1>');
      const names = [...page.html.matchAll(/<span class="category-admin-title">([^<]+)<\/span>/g)].map((m) => m[1]);
      expect(names).toEqual(SIX.map(([, name]) => name));
      expect(page.html).toMatch(/local-services<\/code> · 1 gig</);
      const onAdminHost = await adminHostGet("/categories");
      expect(onAdminHost.status).toBe(200);
      expect(onAdminHost.body).toContain("Add a category");
    });

    it("shows a bad name beside its field with a 400, adding nothing", async () => {
      const before = await categoryRows(t.db);
      for (const [name, message] of [
        ["", words(NAME_REQUIRED)],
        ["Local services", words(NAME_TAKEN)],
        ["x".repeat(51), words(NAME_TOO_LONG)],
      ]) {
        const res = await http("/admin/categories", { who: "admin", form: { intent: "add", name: name!, description: "" } });
        expect(res.status, name).toBe(400);
        expect(res.html).toContain(message);
      }
      expect(await categoryRows(t.db)).toEqual(before);
    });

    it("saves a category's Swahili name, which a Swahili visitor sees on browse at once; an empty one shows the English", async () => {
      const id = await idOf("video-animation");
      const browse = async (language: string) =>
        decode(await (await fetch(`${server.baseUrl}/browse`, { headers: { "Accept-Language": language, Accept: "text/html" } })).text());
      const option = (name: string) => `<option value="video-animation">${name}</option>`;
      // A Swahili page first, so the server holds the category words the save must replace.
      const swBefore = await browse("sw");
      expect(swBefore).not.toContain(option("Video na Katuni"));
      const rename = (fields: Record<string, string>) =>
        http(`/admin/categories?edit=${id}`, {
          who: "admin",
          form: { intent: "rename", categoryId: String(id), name: "Video & Animation", description: "Edits and explainers.", nameLg: "Vidiyo", ...fields },
        });

      const saved = await rename({ nameSw: "Video na Katuni", descriptionSw: "Uhariri wa video na katuni." });
      expect(saved.status).toBe(303);
      expect((await t.db("categories").where({ id }).first("translations")).translations).toEqual({
        lg: { name: "Vidiyo" },
        sw: { name: "Video na Katuni", description: "Uhariri wa video na katuni." },
      });
      expect((await auditRows()).at(-1)).toMatchObject({
        action: "category.rename",
        details: { translations: { lg: { name: "Vidiyo" }, sw: { name: "Video na Katuni", description: "Uhariri wa video na katuni." } } },
      });
      // At once, not when this process's cached words go stale: the save forgot them.
      expect(await browse("sw")).toContain(option("Video na Katuni"));
      expect(await browse("lg")).toContain(option("Vidiyo"));
      expect(await browse("en")).toContain(option("Video & Animation"));
      // The form opens with what is saved, in every language.
      const edit = await http(`/admin/categories?edit=${id}`, { who: "admin" });
      expect(edit.html).toMatch(/name="nameSw"[^>]*value="Video na Katuni"|value="Video na Katuni"[^>]*name="nameSw"/);

      // A description without its name is refused beside the name, changing nothing.
      const refused = await rename({ nameSw: "", descriptionSw: "Maelezo peke yake." });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain(words(TRANSLATION_NEEDS_NAME));
      expect((await t.db("categories").where({ id }).first("translations")).translations.sw.name).toBe("Video na Katuni");

      // Without a Swahili name, Swahili pages show the English.
      expect((await rename({ nameSw: "", descriptionSw: "" })).status).toBe(303);
      expect((await t.db("categories").where({ id }).first("translations")).translations).toEqual({ lg: { name: "Vidiyo" } });
      expect(await browse("sw")).toContain(option("Video & Animation"));
    });

    it("adds, renames, moves, hides and deletes through the forms, each answered with 303 and its notice", async () => {
      const add = await http("/admin/categories", { who: "admin", form: { intent: "add", name: "Tutoring", description: "Lessons at home or online." } });
      expect(add.status).toBe(303);
      const id = await idOf("tutoring");
      expect(add.location).toBe(`/admin/categories?done=added&id=${id}`);
      expect((await http(add.location!, { who: "admin" })).html).toContain("Added “Tutoring”.");

      const edit = await http(`/admin/categories?edit=${id}`, { who: "admin" });
      expect(edit.html).toContain("Rename “Tutoring”");
      const renamed = await http(`/admin/categories?edit=${id}`, {
        who: "admin",
        form: { intent: "rename", categoryId: String(id), name: "Tutoring & Lessons", description: "At home or online." },
      });
      expect(renamed.status).toBe(303);
      expect(await t.db("categories").where({ id }).first("slug", "name")).toEqual({ slug: "tutoring", name: "Tutoring & Lessons" });

      expect((await http("/admin/categories", { who: "admin", form: { intent: "move", categoryId: String(id), direction: "up" } })).status).toBe(303);
      expect((await slugsInOrder()).slice(-2)).toEqual(["tutoring", "local-services"]);

      const hidden = await http("/admin/categories", { who: "admin", form: { intent: "hide", categoryId: String(id) } });
      expect(hidden.status).toBe(303);
      expect((await http(hidden.location!, { who: "admin" })).html).toContain("“Tutoring & Lessons” is hidden");

      const deleted = await http("/admin/categories", { who: "admin", form: { intent: "delete", categoryId: String(id) } });
      expect(deleted.status).toBe(303);
      expect(await t.db("categories").where({ id }).first()).toBeUndefined();
    });

    it("refuses to delete a category with gigs, saying why, with a 409", async () => {
      const res = await http("/admin/categories", { who: "admin", form: { intent: "delete", categoryId: String(await idOf("local-services")) } });
      expect(res.status).toBe(409);
      expect(res.html).toContain(messageOf({ code: "category.has_gigs", params: {} }));
      expect(await idOf("local-services")).toBeGreaterThan(0);
    });
  });

  describe("a hidden category", () => {
    let local: number;
    let gigId: number;
    beforeAll(async () => {
      local = await idOf("local-services");
      gigId = Number((await t.db("gigs").where({ category_id: local }).first("id")).id);
      await setCategoryHidden(adminActor, { intent: "hide", categoryId: local }, opts());
    });
    afterAll(() => setCategoryHidden(adminActor, { intent: "show", categoryId: local }, opts()));

    it("is not a card on the landing page, nor a choice in /browse or the new gig form", async () => {
      const home = await http("/");
      expect(home.html).toContain('href="/browse?category=graphics-design"');
      expect(home.html).not.toContain('href="/browse?category=local-services"');
      expect((await http("/browse")).html).not.toContain('value="local-services"');
      const create = await http("/gig/create", { who: "seller" });
      expect(create.html).toContain('value="graphics-design"');
      expect(create.html).not.toContain('value="local-services"');
    });

    it("shows no gig of it at /browse?category=…, and says the category is not offered", async () => {
      const page = await http("/browse?category=local-services");
      expect(page.status).toBe(200);
      expect(page.html).toContain("That category is not offered at the moment.");
      expect(page.html).not.toContain(`/gig/${gigId}"`);
      // The gig itself is still found without the filter, and at its own page.
      expect((await http(`/gig/${gigId}`)).status).toBe(200);
    });

    it("stays the category of a gig already in it: its edit form shows it, and saving keeps it", async () => {
      const edit = await http(`/gig/${gigId}/edit`, { who: "seller" });
      expect(edit.html).toMatch(/<option value="local-services" selected="">|<option selected="" value="local-services">/);
      const saved = await http(`/gig/${gigId}/edit`, {
        who: "seller",
        multipart: gigFormData([], { ...VALID_GIG_FIELDS, title: "Event photography, all day", category: "local-services" }),
      });
      expect([302, 303]).toContain(saved.status);
      expect(await t.db("gigs").where({ id: gigId }).first("title", "category_id")).toEqual({ title: "Event photography, all day", category_id: local });
      const refused = await http("/gig/create", { who: "seller", multipart: gigFormData([], { ...VALID_GIG_FIELDS, category: "local-services" }) });
      expect(refused.status).toBe(400);
      expect(refused.html).toContain("Choose a category from the list");
    });
  });
});
