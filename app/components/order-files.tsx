const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** The files of an order's requirements or of one delivery, as download links with their sizes. */
export function FileList({ orderId, files, label }: { orderId: number; files: { id: number; fileName: string; sizeBytes: number }[]; label: string }) {
  if (!files.length) return null;
  return (
    <ul className="order-files" aria-label={label}>
      {files.map((f) => (
        <li key={f.id}>
          <a href={`/orders/${orderId}/files/${f.id}`} download={f.fileName}>
            {f.fileName}
          </a>{" "}
          <span className="order-event-meta">({sizeText(f.sizeBytes)})</span>
        </li>
      ))}
    </ul>
  );
}
