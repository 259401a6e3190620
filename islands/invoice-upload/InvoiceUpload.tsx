// The invoice-upload island of 請求書のアップロード (/payments/create; views/payments/create.templ).
// Without JavaScript the page is a plain multipart form (one file input, 送信) that posts to
// /payments/create. The island replaces it with:
//   - a drop zone over a real file input (keyboard: Tab to it, Enter or Space opens the
//     chooser), and on phones a second input with capture="environment" for the camera;
//   - the same checks as the server before anything is sent (rules.ts);
//   - a preview: an image at once, through an object URL; a PDF by its icon and name until
//     it is uploaded, then, while it is read, the server's picture of its first page
//     (GET {resultPath}/{id}/preview, a small PNG drawn by poppler: drawing it here would
//     need pdf.js, about 1 MB of script, more than this page may weigh);
//   - the upload with XMLHttpRequest (fetch reports no upload progress) to
//     POST /api/v1/invoices/files/upload in cookie mode (the session cookie and
//     X-Requested-With: fetch, as islands/lib/api.ts sends them), a <progress> bar, a live
//     announcement at every 25 %, 中止 (abort, told by the page's snackbar) and 再試行 after a network failure;
//   - then GET /api/v1/invoices/files/{id} until reading (OCR) is over, with a second
//     indicator 読み取り中…, and on to the file's page, /payments/create/files/{id}, which
//     shows what was read. Reading never blocks: after MAX_POLLS the buyer goes on anyway;
//     that page shows the reading's state and a link 「最新の状態に更新する」 (it never
//     reloads by itself).
// Props are views/payments.InvoiceUploadProps; example-props.json is written by a Go test
// (views/payments/create_example_test.go).
import { useEffect, useId, useRef, useState, type DragEvent } from "react";
import { ApiError, createApiClient, SIGNIN_PATH, type ApiErrorBody } from "../lib/api";
import { Icon } from "../lib/Icon";
import { showSnackbar } from "../lib/snackbar-events";
import { ACCEPT, checkFile, fileTypeFromName, formatSize, MESSAGES, progressStep } from "./rules";

export interface InvoiceUploadProps {
  /** POST multipart: /api/v1/invoices/files/upload. */
  uploadUrl: string;
  /** The API path of a file without its id, for the api client: /invoices/files. */
  filePath: string;
  /** The file's page without its id: /payments/create/files. */
  resultPath: string;
  /** The multipart field: invoice_file. */
  fieldName: string;
  /** The server's refusal of the last no-JS post, shown under the field; "" for none. */
  error: string;
  /** The icon sprite's URL. */
  iconHref: string;
}

/** The file as GET /api/v1/invoices/files/{id} answers it (the part the island reads). */
export interface InvoiceFileAnswer {
  id: number;
  name: string;
  ocr: { status: "pending" | "running" | "done" | "failed" | "unavailable" };
}

export const TEXT = {
  dropHere: "ここにファイルをドラッグ＆ドロップ",
  choose: "請求書のファイルを選択",
  camera: "カメラで撮影する",
  hint: "PDF・JPEG・PNG、10MBまで",
  upload: "アップロードする",
  cancel: "中止",
  retry: "再試行",
  another: "別のファイルを選ぶ",
  uploading: "アップロード中",
  cancelled: "アップロードを中止しました。",
  networkError: "通信できませんでした。接続を確認して、再試行してください。",
  serverError: "アップロードできませんでした。時間をおいて再試行してください。",
  reading: "読み取り中…",
  readingNote: "請求書の内容を読み取っています。読み取りが終わると、次の画面に進みます。",
  pdfNote: "PDFの1ページ目のプレビューは、アップロードした後に表示します。",
  pagePreview: "の1ページ目のプレビュー",
  uploaded: "アップロードしました。",
} as const;

/** How often the file's reading state is asked for, and how many times (a minute) at most. */
export const POLL_MS = 1500;
export const MAX_POLLS = 40;

/** The box of the server's preview picture (payments.PreviewWidth × PreviewSide, A4). */
export const PREVIEW_WIDTH = 424;
export const PREVIEW_HEIGHT = 600;

/** Navigation, replaceable in tests (jsdom cannot navigate). */
export const nav = { go: (url: string) => window.location.assign(url) };

const api = createApiClient({ mode: "cookie" });

class NetworkError extends Error {}
class AbortedError extends Error {}

/** Sends file as multipart field to url with the session cookie, reporting progress 0..100. */
export function sendFile(
  url: string,
  field: string,
  file: File,
  onProgress: (percent: number) => void,
  signal: AbortSignal,
): Promise<InvoiceFileAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    // Cookie mode of the API (handlers/api/authn.go): a same-origin request carries the
    // session cookie by itself; the header is what the API asks of cookie callers.
    xhr.setRequestHeader("X-Requested-With", "fetch");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === "object") {
        resolve(body as InvoiceFileAnswer);
      } else {
        reject(new ApiError(xhr.status, body && typeof body === "object" ? (body as ApiErrorBody) : null));
      }
    };
    xhr.onerror = () => reject(new NetworkError());
    xhr.ontimeout = () => reject(new NetworkError());
    xhr.onabort = () => reject(new AbortedError());
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append(field, file, file.name);
    xhr.send(form);
  });
}

type Phase =
  | { kind: "idle" }
  | { kind: "uploading"; percent: number }
  | { kind: "failed"; message: string; retry: boolean }
  | { kind: "reading"; id: number };

const isCoarsePointer = () =>
  typeof window !== "undefined" && typeof window.matchMedia === "function" && window.matchMedia("(pointer: coarse)").matches;

export default function InvoiceUpload(props: InvoiceUploadProps) {
  const id = useId();
  const inputId = props.fieldName;
  const [file, setFile] = useState<File | null>(null);
  const [fieldError, setFieldError] = useState(props.error);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [announcement, setAnnouncement] = useState("");
  const [preview, setPreview] = useState("");
  // The server preview that did not load (a network failure): the icon stands in.
  const [brokenPreview, setBrokenPreview] = useState("");
  const [dragging, setDragging] = useState(false);
  const [camera] = useState(isCoarsePointer);
  const upload = useRef<AbortController | null>(null);
  const announced = useRef(0);
  const inputRef = useRef<HTMLInputElement>(null);
  // Set when a refusal should put the focus back on the field once it is enabled again.
  const [refocus, setRefocus] = useState(0);
  useEffect(() => {
    if (refocus) inputRef.current?.focus();
  }, [refocus]);

  // The object URL of an image preview lives as long as the file is chosen.
  useEffect(() => {
    if (!file || !fileTypeFromName(file.name).startsWith("image/")) {
      setPreview("");
      return;
    }
    if (typeof URL.createObjectURL !== "function") return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  // Leaving the page stops an upload in flight.
  useEffect(() => () => upload.current?.abort(), []);

  // While reading: ask for the file's state until reading is over, then go to its page.
  useEffect(() => {
    if (phase.kind !== "reading") return;
    const target = `${props.resultPath}/${phase.id}`;
    let polls = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const ctrl = new AbortController();
    const poll = async () => {
      try {
        const f = await api.get<InvoiceFileAnswer>(`${props.filePath}/${phase.id}`, { signal: ctrl.signal });
        if (stopped) return;
        if (f.ocr.status !== "pending" && f.ocr.status !== "running") {
          nav.go(target);
          return;
        }
      } catch {
        if (stopped) return;
        // The file is stored; its page shows the state whatever happens here.
      }
      if (++polls >= MAX_POLLS) {
        nav.go(target);
        return;
      }
      timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      ctrl.abort();
      if (timer) clearTimeout(timer);
    };
  }, [phase, props.filePath, props.resultPath]);

  function choose(f: File | null | undefined) {
    if (!f || phase.kind === "uploading" || phase.kind === "reading") return;
    const problem = checkFile(f);
    setFieldError(problem);
    setPhase({ kind: "idle" });
    setAnnouncement("");
    if (problem) {
      setFile(null);
      if (inputRef.current) inputRef.current.value = "";
      return;
    }
    setFile(f);
  }

  async function start() {
    if (!file) {
      setFieldError(MESSAGES.missing);
      inputRef.current?.focus();
      return;
    }
    const ctrl = new AbortController();
    upload.current = ctrl;
    announced.current = 0;
    setAnnouncement(`${TEXT.uploading} 0%`);
    setPhase({ kind: "uploading", percent: 0 });
    try {
      const answer = await sendFile(
        props.uploadUrl,
        props.fieldName,
        file,
        (percent) => {
          setPhase({ kind: "uploading", percent });
          const step = progressStep(percent, announced.current);
          if (step > announced.current) {
            announced.current = step;
            setAnnouncement(`${TEXT.uploading} ${step}%`);
          }
        },
        ctrl.signal,
      );
      setAnnouncement(`${TEXT.uploaded}${TEXT.reading}`);
      setPhase({ kind: "reading", id: answer.id });
    } catch (err) {
      if (err instanceof AbortedError) {
        setPhase({ kind: "idle" });
        // The page's snackbar tells it (role=status); the island's own status stays quiet.
        setAnnouncement("");
        showSnackbar({ color: "info", title: TEXT.cancelled, text: "" });
        return;
      }
      if (err instanceof NetworkError) {
        setAnnouncement("");
        setPhase({ kind: "failed", message: TEXT.networkError, retry: true });
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        nav.go(`${SIGNIN_PATH}?redirect=${encodeURIComponent(window.location.pathname)}`);
        return;
      }
      if (err instanceof ApiError && err.status === 429) {
        // Too many uploads at once (the buyer's or the server's): the file is fine and
        // kept; the server's words say to try again a little later.
        setAnnouncement("");
        setPhase({ kind: "failed", message: err.fieldMessage(props.fieldName) || err.message || TEXT.serverError, retry: true });
        return;
      }
      if (err instanceof ApiError && (err.status === 422 || err.status === 413)) {
        // A refusal of the file itself: the message belongs next to the field.
        setPhase({ kind: "idle" });
        setAnnouncement("");
        setFieldError(err.fieldMessage(props.fieldName) || (err.status === 413 ? MESSAGES.tooLarge : err.message));
        setFile(null);
        if (inputRef.current) inputRef.current.value = "";
        setRefocus((n) => n + 1);
        return;
      }
      setAnnouncement("");
      setPhase({ kind: "failed", message: TEXT.serverError, retry: true });
    } finally {
      upload.current = null;
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer?.files?.[0]);
  };

  const busy = phase.kind === "uploading" || phase.kind === "reading";
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hintId, fieldError ? errorId : ""].filter(Boolean).join(" ");
  const isPDF = file && fileTypeFromName(file.name) === "application/pdf";
  // Once a PDF is stored, the server draws its first page while it is read.
  const pagePreview = isPDF && phase.kind === "reading" ? `${props.resultPath}/${phase.id}/preview` : "";

  return (
    <div className="invoice-upload">
      <div
        className={`invoice-upload__drop${dragging ? " invoice-upload__drop--over" : ""}${fieldError ? " field--error" : ""} field`}
        onDragOver={(e) => {
          e.preventDefault();
          if (!busy) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="dropzone"
      >
        <Icon href={props.iconHref} name="upload_file" className="invoice-upload__icon" />
        <p className="invoice-upload__drop-text" aria-hidden="true">
          {TEXT.dropHere}
        </p>
        <label className="field__label" htmlFor={inputId}>
          {TEXT.choose}
        </label>
        <p className="field__hint" id={hintId}>
          {TEXT.hint}
        </p>
        {fieldError && (
          <p className="field-error" id={errorId} role="alert">
            <Icon href={props.iconHref} name="warning_filled" />
            <span className="visually-hidden">エラー：</span>
            {fieldError}
          </p>
        )}
        <input
          ref={inputRef}
          className="field__input"
          id={inputId}
          name={props.fieldName}
          type="file"
          accept={ACCEPT}
          disabled={busy}
          aria-describedby={describedBy}
          aria-invalid={fieldError ? true : undefined}
          onChange={(e) => choose(e.currentTarget.files?.[0])}
        />
        {camera && (
          <p className="invoice-upload__camera">
            <label className="btn btn--sm btn--secondary" htmlFor={`${id}-camera`}>
              <Icon href={props.iconHref} name="upload" />
              <span>{TEXT.camera}</span>
            </label>
            <input
              id={`${id}-camera`}
              className="visually-hidden"
              type="file"
              accept="image/jpeg,image/png"
              capture="environment"
              disabled={busy}
              onChange={(e) => choose(e.currentTarget.files?.[0])}
            />
          </p>
        )}
      </div>

      {file && (
        <figure className="invoice-upload__preview">
          {preview ? (
            <img src={preview} alt={`${file.name} のプレビュー`} className="invoice-upload__image" />
          ) : pagePreview && brokenPreview !== pagePreview ? (
            <img
              src={pagePreview}
              alt={`${file.name} ${TEXT.pagePreview}`}
              width={PREVIEW_WIDTH}
              height={PREVIEW_HEIGHT}
              className="invoice-upload__image invoice-upload__image--page"
              onError={() => setBrokenPreview(pagePreview)}
            />
          ) : (
            <Icon href={props.iconHref} name="description" className="invoice-upload__file-icon" />
          )}
          <figcaption>
            <span className="invoice-upload__name">{file.name}</span>（{formatSize(file.size)}）
            {isPDF && !pagePreview && <span className="invoice-upload__note">{TEXT.pdfNote}</span>}
          </figcaption>
        </figure>
      )}

      {phase.kind === "uploading" && (
        <div className="invoice-upload__progress">
          <label htmlFor={`${id}-upload`}>
            {TEXT.uploading} {phase.percent}%
          </label>
          <progress id={`${id}-upload`} max={100} value={phase.percent}>
            {phase.percent}%
          </progress>
        </div>
      )}

      {phase.kind === "reading" && (
        <div className="invoice-upload__progress">
          <label htmlFor={`${id}-reading`}>{TEXT.reading}</label>
          {/* No value: how long reading takes is unknown, so the bar is indeterminate. */}
          <progress id={`${id}-reading`} />
          <p className="field__hint">{TEXT.readingNote}</p>
        </div>
      )}

      {phase.kind === "failed" && (
        <div className="callout callout--error" role="alert">
          <p>{phase.message}</p>
        </div>
      )}

      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>

      <div className="form-actions">
        {phase.kind === "uploading" ? (
          <button type="button" className="btn btn--md btn--secondary" onClick={() => upload.current?.abort()}>
            <Icon href={props.iconHref} name="close" />
            <span>{TEXT.cancel}</span>
          </button>
        ) : phase.kind === "failed" && phase.retry ? (
          <button type="button" className="btn btn--md btn--primary" onClick={() => void start()}>
            <Icon href={props.iconHref} name="update" />
            <span>{TEXT.retry}</span>
          </button>
        ) : (
          phase.kind !== "reading" && (
            <button type="button" className="btn btn--md btn--primary" onClick={() => void start()}>
              <Icon href={props.iconHref} name="cloud_upload" />
              <span>{TEXT.upload}</span>
            </button>
          )
        )}
      </div>
    </div>
  );
}
