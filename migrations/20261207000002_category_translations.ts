import type { Knex } from "knex";

/**
 * A category's name and description in Luganda and Swahili (ADR 047): the platform's own words, kept in the
 * row beside the English (`name`, `description`) as `{"lg": {"name": …, "description": …}, "sw": {…}}`. A
 * language without an entry shows the English. The six categories of the marketplace get theirs here, where
 * the row still has the English they were written for (an admin's renamed category keeps what it has).
 *
 * The words are written out here, not imported: a migration must mean the same thing whenever it runs.
 */
const TRANSLATIONS: Record<string, { en: string; lg: [string, string]; sw: [string, string] }> = {
  "graphics-design": {
    en: "Graphics & Design",
    lg: ["Ebifaananyi n'Okukola Dizayini", "Obubonero bwa bizinensi, okumanyisa ekibinja, obupapula obulanga n'ebifaananyi bya social media."],
    sw: ["Michoro na Usanifu", "Nembo, utambulisho wa chapa, vipeperushi na michoro ya mitandao ya kijamii."],
  },
  "web-development": {
    en: "Web Development",
    lg: ["Okukola Emikutu", "Emikutu gy'oku mutimbagano, amaduuka ag'oku mutimbagano ne apps ez'oku mutimbagano."],
    sw: ["Utengenezaji wa Tovuti", "Tovuti, maduka ya mtandaoni na programu za wavuti."],
  },
  "writing-translation": {
    en: "Writing & Translation",
    lg: ["Okuwandiika n'Okuvvuunula", "Ebiwandiiko by'okutunda, emiko, CV n'okuvvuunula mu Luganda, Oluswayiri oba Olungereza."],
    sw: ["Uandishi na Tafsiri", "Matangazo, makala, CV na tafsiri za Kiganda, Kiswahili au Kiingereza."],
  },
  "video-animation": {
    en: "Video & Animation",
    lg: ["Vidiyo n'Ebifaananyi Ebitambula", "Okutereeza vidiyo, vidiyo ezinnyonnyola n'ebirango ebitambula."],
    sw: ["Video na Uhuishaji", "Uhariri wa video, video za maelezo na matangazo ya uhuishaji."],
  },
  "digital-marketing": {
    en: "Digital Marketing",
    lg: ["Okutunda ku Mutimbagano", "Social media, SEO n'okulanga ebintu ku mutimbagano."],
    sw: ["Masoko ya Kidijitali", "Mitandao ya kijamii, SEO na kampeni za matangazo."],
  },
  "local-services": {
    en: "Local Services",
    lg: ["Obuweereza obw'okumpi", "Okukuba ebifaananyi, emikolo, okusomesa n'ebirala okumpi nammwe."],
    sw: ["Huduma za Karibu", "Upigaji picha, matukio, ufundishaji na zaidi karibu nawe."],
  },
};

export async function up(db: Knex) {
  await db.raw(`ALTER TABLE categories ADD COLUMN translations jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(translations) = 'object')`);
  for (const [slug, t] of Object.entries(TRANSLATIONS)) {
    const words = { lg: { name: t.lg[0], description: t.lg[1] }, sw: { name: t.sw[0], description: t.sw[1] } };
    await db.raw(`UPDATE categories SET translations = ?::jsonb WHERE slug = ? AND name = ?`, [JSON.stringify(words), slug, t.en]);
  }
}

export async function down(db: Knex) {
  await db.raw(`ALTER TABLE categories DROP COLUMN IF EXISTS translations`);
}
