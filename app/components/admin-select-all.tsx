import { useEffect, useRef } from "react";
import { useT } from "~/i18n/react";

/** With JavaScript only: one box that ticks every member of the page (without it, each box is ticked by hand). */
export function SelectAll() {
  const ref = useRef<HTMLInputElement>(null);
  const { t } = useT();
  useEffect(() => {
    if (ref.current) ref.current.hidden = false;
  }, []);
  return (
    <>
      <span className="visually-hidden">{t("admin.users.select")}</span>
      <label className="admin-check">
        <input
          ref={ref}
          type="checkbox"
          hidden
          aria-label={t("admin.users.selectAll")}
          onChange={(e) => {
            const boxes = document.querySelectorAll<HTMLInputElement>('input[form="bulk-users"][name="userIds"]');
            boxes.forEach((b) => (b.checked = e.currentTarget.checked));
          }}
        />
      </label>
    </>
  );
}
