/** Where a stored image is served (see app/routes/media.$name.tsx); safe to use in the browser. */
export type ImageSizeName = "avatar" | "thumb" | "large";

export function imageUrl(key: string, size: ImageSizeName) {
  return `/media/${key}-${size}.webp`;
}
