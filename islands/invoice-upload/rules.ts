// The client-side checks of an invoice file before it is sent: the same rules and the same
// Japanese messages as the server (pay.FileTypeFromName — SPEC.md §5 — and
// pay.InvoiceFileProblem / pay.CheckInvoiceFile), so that a wrong file is refused at once
// instead of after a 10 MB upload. The server checks the content again; these checks only
// save the buyer a wait.

/** pay.MaxInvoiceFileBytes: 10 MB. */
export const MAX_INVOICE_FILE_BYTES = 10 * 1024 * 1024;

/** The file input's accept attribute (the server's fallback form has the same). */
export const ACCEPT = ".pdf,.jpg,.jpeg,.png";

/** The messages of pay.CheckInvoiceFile (pay/invoicefile.go), word for word. */
export const MESSAGES = {
  empty: "ファイルが空です。請求書のファイルを選択してください。",
  tooLarge: "ファイルサイズが10MBを超えています。10MB以下のファイルを選択してください。",
  // The server's message for a name outside SPEC.md §5 (its content is checked there).
  wrongType: "ファイル名の拡張子が .pdf、.jpg、.jpeg、.png のいずれでもありません。請求書の PDF か画像（JPEG、PNG）を選択してください。",
  // The same words as the pages' refusal of a form posted without a file.
  missing: "請求書のファイルを選択してください。",
} as const;

/**
 * SPEC.md §5 "File type from extension": jpg/jpeg is image/jpeg, png is image/png, pdf is
 * application/pdf, otherwise empty. Case does not matter; a Windows path's folders are
 * dropped (pay.FileTypeFromName).
 */
export function fileTypeFromName(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1);
  const dot = base.lastIndexOf(".");
  if (dot < 0) return "";
  switch (base.slice(dot).toLowerCase()) {
    case ".jpg":
    case ".jpeg":
      return "image/jpeg";
    case ".png":
      return "image/png";
    case ".pdf":
      return "application/pdf";
  }
  return "";
}

/** The Japanese refusal for a chosen file, or "" when it may be sent. */
export function checkFile(file: { name: string; size: number }): string {
  // The server's order (pay.CheckInvoiceFile): empty, too large, then the name.
  if (file.size <= 0) return MESSAGES.empty;
  if (file.size > MAX_INVOICE_FILE_BYTES) return MESSAGES.tooLarge;
  if (fileTypeFromName(file.name) === "") return MESSAGES.wrongType;
  return "";
}

/** A size for people: 512 B, 1.5 KB, 3.2 MB (pay.FormatFileSize on the server pages). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The announcement due at percent, given the last one made: every 25 % step once
 * (25, 50, 75, 100), so that a screen reader is told of progress without a flood.
 */
export function progressStep(percent: number, lastAnnounced: number): number {
  const step = Math.floor(Math.min(Math.max(percent, 0), 100) / 25) * 25;
  return step > lastAnnounced ? step : lastAnnounced;
}
