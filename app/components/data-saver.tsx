/**
 * Data-saver mode in the page (ADR 054): the switch every page's footer carries, images that wait for "Show image",
 * and avatars as initials. The mode is the root loader's `dataSaver` (the member's preference, else the visitor's
 * cookie). A data-saver document is sent without the app's scripts; SHOW_IMAGE_SCRIPT (data-saver.server.ts), inline, is its only one.
 */
import { Form, useLocation, useRouteLoaderData } from "@remix-run/react";
import { useState, type MouseEvent } from "react";
import type { loader as rootLoader } from "~/root";
import { useT } from "~/i18n/react";
import { imageUrl, imageSrcSet } from "~/utils/media";

/** Whether this page is drawn in data-saver mode. */
export function useDataSaver(): boolean {
  return useRouteLoaderData<typeof rootLoader>("root")?.dataSaver === true;
}

/** The footer's switch: one button that posts the other choice to /data-saver and comes back to this page. */
export function DataSaverSwitch() {
  const { t } = useT();
  const on = useDataSaver();
  const location = useLocation();
  return (
    <Form method="post" action="/data-saver" className="data-saver-switch">
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <span>{on ? t("common.dataSaver.isOn") : t("common.dataSaver.isOff")}</span>
      <button type="submit" name="dataSaver" value={on ? "off" : "on"} className="button button-secondary button-small">
        {on ? t("common.dataSaver.turnOff") : t("common.dataSaver.turnOn")}
      </button>
    </Form>
  );
}

type StoredImageProps = {
  imageKey: string;
  alt: string;
  sizes: string;
  width: number;
  height: number;
  className?: string;
  /** The largest rendition worth offering here (a card never needs the 1280-pixel one). */
  largest?: "thumb" | "large";
  lazy?: boolean;
};

/**
 * A stored image in the page. Normally an `<img>` with the renditions as a srcset, so the browser takes the smallest
 * that fills `sizes` on its screen. In data-saver mode a "Show image" link to the smallest rendition instead: without
 * JavaScript it opens that image alone; with it (this click handler on a hydrated page, the inline script on a
 * data-saver document) the image takes the link's place.
 */
export function StoredImage({ imageKey, alt, sizes, width, height, className, largest = "thumb", lazy = true }: StoredImageProps) {
  const saver = useDataSaver();
  if (saver) return <ShowImage src={imageUrl(imageKey, "small")} {...{ alt, width, height, className }} />;
  return <ResponsiveImage {...{ imageKey, alt, sizes, width, height, className, largest, lazy }} />;
}

/**
 * In data-saver mode, one image (`src`: its smallest rendition) behind a "Show image" link, and the image once
 * the link is tapped; the page's own images otherwise stay as they are. For a place that shows one rendition
 * only (a member's own photo in their settings, a gig's images in its form) as well as for StoredImage.
 */
export function ShowImage({ src, alt, width, height, className }: { src: string; alt: string; width: number; height: number; className?: string }) {
  const [shown, setShown] = useState(false);
  const { t } = useT();
  if (shown) return <img className={className} src={src} alt={alt} width={width} height={height} />;
  const show = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    setShown(true);
  };
  return (
    <a href={src} className={`show-image ${className ?? ""}`} data-show-image="" data-alt={alt} data-class={className} onClick={show}>
      {t("common.dataSaver.showImage")}
    </a>
  );
}

/** A stored image in every rendition it has, whatever the mode: for a place that is already a link to the image. */
export function ResponsiveImage({ imageKey, alt, sizes, width, height, className, largest = "thumb", lazy = true }: StoredImageProps) {
  return (
    <img
      className={className}
      src={imageUrl(imageKey, largest === "large" ? "thumb" : "small")}
      srcSet={imageSrcSet(imageKey, largest)}
      sizes={sizes}
      alt={alt}
      width={width}
      height={height}
      {...(lazy ? { loading: "lazy" as const } : {})}
    />
  );
}

/** "Sarah Namuli" → "SN". */
export function initialsOf(name: string): string {
  return (
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w.charAt(0).toUpperCase())
      .join("") || "?"
  );
}

/**
 * A member's picture, or their initials when they have none or the page is in data-saver mode: an element named
 * by the member's name for a screen reader, whose initials are what the eye sees.
 */
export function MemberAvatar({ name, avatarKey, size, className = "avatar" }: { name: string; avatarKey: string | null; size: number; className?: string }) {
  const saver = useDataSaver();
  if (avatarKey && !saver) return <img src={imageUrl(avatarKey, "avatar")} alt="" width={size} height={size} className={className} loading="lazy" />;
  return (
    <span className={`${className} avatar-initials`} role="img" aria-label={name}>
      <span aria-hidden="true">{initialsOf(name)}</span>
    </span>
  );
}
