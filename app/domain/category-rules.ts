/**
 * A category's limits, without zod: the admin Categories screen states them beside its fields in the browser,
 * where the schema (app/schemas/category.ts) is loaded only once a form is used.
 */
export const CATEGORY_NAME_MAX = 50;
export const CATEGORY_DESCRIPTION_MAX = 200;
