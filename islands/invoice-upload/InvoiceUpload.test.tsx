import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import InvoiceUpload, { MAX_POLLS, nav, POLL_MS, PREVIEW_HEIGHT, PREVIEW_WIDTH, TEXT, type InvoiceUploadProps } from "./InvoiceUpload";
import exampleProps from "./example-props.json";
import { MESSAGES } from "./rules";
import { SNACKBAR_EVENT, type SnackbarNotice } from "../lib/snackbar-events";

// example-props.json: the props the upload page gives the island (its Go test keeps them
// equal to views/payments.InvoiceUploadProps).
const props = exampleProps as InvoiceUploadProps;

/** A stand-in for XMLHttpRequest that the test drives: progress, answer, failure. */
class FakeXHR {
  static all: FakeXHR[] = [];
  method = "";
  url = "";
  headers: Record<string, string> = {};
  body: FormData | null = null;
  status = 0;
  responseText = "";
  aborted = false;
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  constructor() {
    FakeXHR.all.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total });
  }
  answer(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
  fail() {
    this.onerror?.();
  }
}

const last = () => FakeXHR.all[FakeXHR.all.length - 1];

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;
let fetchMock: ReturnType<typeof vi.fn<FetchFn>>;
let went: string[];

beforeEach(() => {
  FakeXHR.all = [];
  vi.stubGlobal("XMLHttpRequest", FakeXHR);
  fetchMock = vi.fn<FetchFn>(async () => json(200, { id: 7, name: "請求書.pdf", ocr: { status: "done" } }));
  vi.stubGlobal("fetch", fetchMock);
  went = [];
  vi.spyOn(nav, "go").mockImplementation((url: string) => {
    went.push(url);
  });
  URL.createObjectURL = vi.fn(() => "blob:preview-1");
  URL.revokeObjectURL = vi.fn();
});

const pdf = (size = 2048, name = "請求書.pdf") => new File([new Uint8Array(size)], name, { type: "application/pdf" });
const input = () => document.getElementById("invoice_file") as HTMLInputElement;
const pick = (f: File) => fireEvent.change(input(), { target: { files: [f] } });
const status = () => screen.getByRole("status").textContent;
const uploadButton = () => screen.getByRole("button", { name: TEXT.upload });

describe("InvoiceUpload", () => {
  it("offers a labelled file input with the accepted types and the hint", () => {
    render(<InvoiceUpload {...props} />);
    const el = screen.getByLabelText(TEXT.choose) as HTMLInputElement;
    expect(el.type).toBe("file");
    expect(el.name).toBe("invoice_file");
    expect(el.accept).toBe(".pdf,.jpg,.jpeg,.png");
    expect(el.getAttribute("aria-describedby")).toBe("invoice_file-hint");
    expect(document.getElementById("invoice_file-hint")!.textContent).toBe("PDF・JPEG・PNG、10MBまで");
  });

  it("shows the server's refusal of a no-JS post next to the field", () => {
    render(<InvoiceUpload {...props} error={MESSAGES.wrongType} />);
    expect(document.getElementById("invoice_file-error")!.textContent).toContain(MESSAGES.wrongType);
    expect(input().getAttribute("aria-invalid")).toBe("true");
    expect(input().getAttribute("aria-describedby")).toBe("invoice_file-hint invoice_file-error");
  });

  it.each([
    ["a renamed file of another type", new File(["x"], "invoice.docx"), MESSAGES.wrongType],
    ["an empty file", new File([], "empty.pdf"), MESSAGES.empty],
    ["a file over 10 MB", new File([new Uint8Array(10 * 1024 * 1024 + 1)], "big.png"), MESSAGES.tooLarge],
  ])("refuses %s before sending anything, as an alert", (_, f, message) => {
    render(<InvoiceUpload {...props} />);
    pick(f);
    expect(screen.getByRole("alert").textContent).toContain(message);
    fireEvent.click(uploadButton());
    expect(FakeXHR.all).toHaveLength(0);
    expect(document.getElementById("invoice_file-error")!.textContent).toContain(MESSAGES.missing);
  });

  it("previews an image through an object URL and a PDF by its icon and name", () => {
    render(<InvoiceUpload {...props} />);
    pick(new File([new Uint8Array(10)], "photo.JPG", { type: "image/jpeg" }));
    const img = screen.getByRole("img", { name: "photo.JPG のプレビュー" }) as HTMLImageElement;
    expect(img.getAttribute("src")).toBe("blob:preview-1");
    pick(pdf());
    expect(screen.queryByRole("img", { name: /プレビュー/ })).toBeNull();
    expect(URL.revokeObjectURL).toHaveBeenCalledWith("blob:preview-1");
    expect(screen.getByText("請求書.pdf")).toBeTruthy();
    expect(screen.getByText(TEXT.pdfNote)).toBeTruthy();
  });

  it("shows the server's picture of a PDF's first page while it is read", async () => {
    fetchMock.mockImplementation(async () => json(200, { id: 7, name: "請求書.pdf", ocr: { status: "running" } }));
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    expect(screen.getByText(TEXT.pdfNote)).toBeTruthy();
    fireEvent.click(uploadButton());
    act(() => last().answer(201, { id: 7, name: "請求書.pdf", ocr: { status: "pending" } }));
    const img = (await screen.findByRole("img", { name: `請求書.pdf ${TEXT.pagePreview}` })) as HTMLImageElement;
    expect(img.getAttribute("src")).toBe("/payments/create/files/7/preview");
    // The box of the picture is known before it arrives: nothing moves.
    expect(img.getAttribute("width")).toBe(String(PREVIEW_WIDTH));
    expect(img.getAttribute("height")).toBe(String(PREVIEW_HEIGHT));
    expect(screen.queryByText(TEXT.pdfNote)).toBeNull();
    expect(screen.getByText("請求書.pdf")).toBeTruthy();
    // A picture that does not load gives way to the icon; the name stays.
    fireEvent.error(img);
    expect(screen.queryByRole("img", { name: /プレビュー/ })).toBeNull();
    expect(screen.getByText("請求書.pdf")).toBeTruthy();
  });

  it("keeps an image's own preview while it is read", async () => {
    fetchMock.mockImplementation(async () => json(200, { id: 8, name: "photo.jpg", ocr: { status: "running" } }));
    render(<InvoiceUpload {...props} />);
    pick(new File([new Uint8Array(10)], "photo.jpg", { type: "image/jpeg" }));
    fireEvent.click(uploadButton());
    act(() => last().answer(201, { id: 8, name: "photo.jpg", ocr: { status: "pending" } }));
    await waitFor(() => expect(screen.getByRole("progressbar", { name: TEXT.reading })).toBeTruthy());
    const img = screen.getByRole("img", { name: "photo.jpg のプレビュー" }) as HTMLImageElement;
    expect(img.getAttribute("src")).toBe("blob:preview-1");
  });

  it("takes a dropped file", () => {
    render(<InvoiceUpload {...props} />);
    fireEvent.drop(screen.getByTestId("dropzone"), { dataTransfer: { files: [pdf(100, "dropped.pdf")] } });
    expect(screen.getByText("dropped.pdf")).toBeTruthy();
  });

  it("uploads in cookie mode with a progress bar, announces each 25 %, reads, then goes to the file's page", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fetchMock.mockResolvedValueOnce(json(200, { id: 7, name: "請求書.pdf", ocr: { status: "running" } }));
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    fireEvent.click(uploadButton());
    const xhr = last();
    expect(xhr.method).toBe("POST");
    expect(xhr.url).toBe("/api/v1/invoices/files/upload");
    expect(xhr.headers["X-Requested-With"]).toBe("fetch");
    expect((xhr.body!.get("invoice_file") as File).name).toBe("請求書.pdf");

    const bar = () => screen.getByRole("progressbar", { name: /アップロード中/ }) as HTMLProgressElement;
    expect(bar().value).toBe(0);
    const heard: string[] = [];
    for (const loaded of [300, 512, 700, 1100, 1600, 2048]) {
      act(() => xhr.progress(loaded, 2048));
      heard.push(status() ?? "");
    }
    expect(bar().value).toBe(100);
    expect([...new Set(heard)]).toEqual(["アップロード中 0%", "アップロード中 25%", "アップロード中 50%", "アップロード中 75%", "アップロード中 100%"]);

    act(() => xhr.answer(201, { id: 7, name: "請求書.pdf", ocr: { status: "pending" } }));
    await waitFor(() => expect(screen.getByRole("progressbar", { name: TEXT.reading })).toBeTruthy());
    expect(status()).toContain(TEXT.reading);
    // The first poll says running; the next one, done.
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/v1/invoices/files/7");
    expect((init!.headers as Record<string, string>)["X-Requested-With"]).toBe("fetch");
    expect(went).toEqual([]);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(POLL_MS);
    });
    await waitFor(() => expect(went).toEqual(["/payments/create/files/7"]));
  });

  it("goes on after waiting long enough for a reading that does not end", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fetchMock.mockImplementation(async () => json(200, { id: 9, name: "a.png", ocr: { status: "running" } }));
    render(<InvoiceUpload {...props} />);
    pick(new File([new Uint8Array(5)], "a.png"));
    fireEvent.click(uploadButton());
    act(() => last().answer(201, { id: 9, name: "a.png", ocr: { status: "pending" } }));
    for (let i = 1; i < MAX_POLLS; i++) {
      await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(i));
      expect(went).toEqual([]);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(POLL_MS);
      });
    }
    await waitFor(() => expect(went).toEqual(["/payments/create/files/9"]));
    expect(fetchMock).toHaveBeenCalledTimes(MAX_POLLS);
  });

  it("cancels an upload in flight", () => {
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    fireEvent.click(uploadButton());
    act(() => last().progress(100, 2048));
    const raised: SnackbarNotice[] = [];
    const onNotice = (e: Event) => raised.push((e as CustomEvent<SnackbarNotice>).detail);
    window.addEventListener(SNACKBAR_EVENT, onNotice);
    fireEvent.click(screen.getByRole("button", { name: TEXT.cancel }));
    expect(last().aborted).toBe(true);
    return waitFor(() => {
      // The page's snackbar says so (the island raises it, SPEC.md §2); the island's own
      // status stays quiet so that a screen reader hears it once.
      expect(raised).toEqual([{ color: "info", title: TEXT.cancelled, text: "" }]);
      expect(status()).toBe("");
      expect(screen.queryByRole("progressbar")).toBeNull();
      expect(uploadButton()).toBeTruthy();
    }).finally(() => window.removeEventListener(SNACKBAR_EVENT, onNotice));
  });

  it("shows the server's words after too many uploads at once, and offers a retry", async () => {
    const busy = "同時にアップロードできるのは3件までです。しばらくしてからもう一度お試しください。";
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    fireEvent.click(uploadButton());
    act(() =>
      last().answer(429, { status: "too_many_uploads", message: busy, errors: [{ field: "invoice_file", message: busy }] }),
    );
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(busy));
    fireEvent.click(screen.getByRole("button", { name: TEXT.retry }));
    expect(FakeXHR.all).toHaveLength(2);
    act(() => last().answer(201, { id: 4, name: "請求書.pdf", ocr: { status: "unavailable" } }));
    await waitFor(() => expect(went).toEqual(["/payments/create/files/4"]));
  });

  it("offers a retry after a network failure, which sends the file again", async () => {
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    fireEvent.click(uploadButton());
    act(() => last().fail());
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(TEXT.networkError));
    fireEvent.click(screen.getByRole("button", { name: TEXT.retry }));
    expect(FakeXHR.all).toHaveLength(2);
    act(() => last().answer(201, { id: 3, name: "請求書.pdf", ocr: { status: "unavailable" } }));
    await waitFor(() => expect(went).toEqual(["/payments/create/files/3"]));
  });

  it("shows the server's refusal next to the field and lets the buyer choose again", async () => {
    render(<InvoiceUpload {...props} />);
    pick(pdf(100, "fake.pdf"));
    fireEvent.click(uploadButton());
    const msg = "PDFにJavaScriptが含まれているため、受け付けられません。";
    act(() =>
      last().answer(422, { status: "validation_error", message: "入力内容に誤りがあります。", errors: [{ field: "invoice_file", message: msg }] }),
    );
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain(msg));
    // The focus comes back in an effect of the refusal's render (once the field is enabled
    // again), which can commit after the one that shows the message.
    await waitFor(() => expect(document.activeElement).toBe(input()));
    expect(screen.queryByText("fake.pdf")).toBeNull();
    expect(input().disabled).toBe(false);
  });

  it("sends a signed-out buyer to sign in", async () => {
    render(<InvoiceUpload {...props} />);
    pick(pdf());
    fireEvent.click(uploadButton());
    act(() => last().answer(401, { status: "unauthorized", message: "ログインしてください。" }));
    await waitFor(() => expect(went).toEqual(["/signin?redirect=%2F"]));
  });
});
