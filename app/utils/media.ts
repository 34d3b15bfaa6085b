/** Where a stored image is served (see app/routes/media.$name.tsx); safe to use in the browser. */
export type ImageSizeName = "avatar" | "small" | "thumb" | "large";

export function imageUrl(key: string, size: ImageSizeName) {
  return `/media/${key}-${size}.webp`;
}

/** The widths of the renditions a page may offer in a srcset (app/server/files/storage.server.ts makes them). */
export const RENDITION_WIDTHS = { small: 320, thumb: 480, large: 1280 } as const;

/** A srcset of an image's renditions from the smallest up to `largest`, for the browser to pick from by `sizes`. */
export function imageSrcSet(key: string, largest: "thumb" | "large" = "thumb"): string {
  const sizes = largest === "large" ? (["small", "thumb", "large"] as const) : (["small", "thumb"] as const);
  return sizes.map((size) => `${imageUrl(key, size)} ${RENDITION_WIDTHS[size]}w`).join(", ");
}
