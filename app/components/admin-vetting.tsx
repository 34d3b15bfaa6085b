import { Form, useNavigation } from "@remix-run/react";
import { useT } from "~/i18n/react";
import { VETTING_NOTE_MAX } from "~/schemas/vetting";

/** A member's vetting as the Users screen knows it (ADR 051). */
export type VettingRow = { id: number; name: string; role: string; status: string; vettedAt: Date | string | null; vettedNote: string | null };

/**
 * A freelancer's vetting in their Users row: "Vetted" with the admin's note when they are, and a form (behind
 * a `<details>`: no JavaScript needed) to vet them or take it back, each with a required note.
 */
export function VettingControl({ u, back }: { u: VettingRow; back: URLSearchParams }) {
  const { t } = useT();
  const navigation = useNavigation();
  if (u.role !== "freelancer" || u.status === "deleted") return null;
  const vetted = u.vettedAt !== null;
  const intent = vetted ? "unvet" : "vet";
  const pending = navigation.state === "submitting" && navigation.formData?.get("userId") === String(u.id) && navigation.formData.get("intent") === intent;
  return (
    <div className="admin-vetting">
      {vetted ? (
        <p>
          <span className="status-badge status-vetted">{t("admin.vetted.badge")}</span> <span className="field-hint">{u.vettedNote}</span>
        </p>
      ) : null}
      <details>
        <summary className="button button-secondary button-small">
          {vetted ? t("admin.vetted.revokeNamed", { name: u.name }) : t("admin.vetted.vetNamed", { name: u.name })}
        </summary>
        <Form method="post" action={`?${back}`} className="vetting-form">
          <input type="hidden" name="userId" value={u.id} />
          <label htmlFor={`vet-note-${u.id}`}>{vetted ? t("admin.vetted.revokeNote") : t("admin.vetted.vetNote")}</label>
          <textarea id={`vet-note-${u.id}`} name="note" required maxLength={VETTING_NOTE_MAX} rows={3} />
          <button type="submit" name="intent" value={intent} className="button button-small" disabled={pending} aria-disabled={pending}>
            {pending ? t("admin.vetted.saving") : vetted ? t("admin.vetted.revoke") : t("admin.vetted.vet")}
          </button>
        </Form>
      </details>
    </div>
  );
}
