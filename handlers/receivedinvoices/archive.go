package receivedinvoices

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// SearchZIPPath downloads the search's hits themselves: every kept file, as received,
// with the index (索引簿) beside them, naming each file's entry in the ZIP.
const SearchZIPPath = "/receipt-invoices/search.zip"

// MaxArchiveFiles bounds one ZIP: a file is at most 10 MB, so 300 are at most 3 GB; a
// search with more hits is narrowed first (the page says so).
const MaxArchiveFiles = 300

// DownloadArchive sends the search's hits as a ZIP: index.csv (the CSV index with the
// entry name of each file) and the files, byte for byte as kept (their SHA-256 in the
// index proves it). More hits than MaxArchiveFiles: back to the search with why.
func (h *Handler) DownloadArchive(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	f, q, _, _ := searchFilter(c)
	f.BuyerID, f.Size = u.BuyerID, MaxArchiveFiles
	hits, total, err := h.Store.ReceivedInvoices(ctx, f)
	if err != nil {
		return err
	}
	if total > MaxArchiveFiles {
		h.SetFlash(c, views.Flash{Color: "error", Title: "ファイルをまとめてダウンロードできませんでした",
			Text: fmt.Sprintf("該当が%d件あります。%d件以下になるよう、期間などの条件を絞ってください。", total, MaxArchiveFiles)})
		back := SearchPage.Path
		if len(q) > 0 {
			back += "?" + q.Encode()
		}
		return c.Redirect(http.StatusSeeOther, back)
	}
	files := make([]store.InvoiceFile, len(hits))
	names := make([]string, len(hits))
	var index bytes.Buffer
	index.WriteString("\ufeff")
	w := csv.NewWriter(&index)
	w.UseCRLF = true
	if err := w.Write(append(append([]string{}, indexHeader...), "ZIP内のファイル")); err != nil {
		return err
	}
	for i, r := range hits {
		if files[i], err = h.Store.InvoiceFile(ctx, u.BuyerID, r.FileID); err != nil {
			return err
		}
		names[i] = archiveName(r)
		if err := w.Write(append(indexRow(r), names[i])); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}

	name := "受取請求書_" + h.Now().In(pay.Tokyo()).Format("20060102") + ".zip"
	hdr := c.Response().Header()
	hdr.Set("Content-Type", "application/zip")
	hdr.Set("Content-Disposition", web.ContentDisposition(name))
	hdr.Set("Cache-Control", "private, no-store")
	c.Response().WriteHeader(http.StatusOK)
	// From here the answer is under way: a file that cannot be read ends the ZIP
	// unfinished (the browser reports a failed download) and is logged.
	zw := zip.NewWriter(c.Response())
	now := h.Now()
	if err := addEntry(zw, "index.csv", now, bytes.NewReader(index.Bytes())); err != nil {
		return h.archiveFailed(c, err)
	}
	for i, f := range files {
		rc, err := h.InvoiceFiles.Open(ctx, f)
		if err != nil {
			return h.archiveFailed(c, err)
		}
		err = addEntry(zw, names[i], hits[i].ReceivedAt, rc)
		rc.Close()
		if err != nil {
			return h.archiveFailed(c, err)
		}
	}
	if err := zw.Close(); err != nil {
		return h.archiveFailed(c, err)
	}
	return nil
}

// addEntry stores r in the ZIP as name, uncompressed when it is a PDF or an image that
// would not shrink, dated modified.
func addEntry(zw *zip.Writer, name string, modified time.Time, r io.Reader) error {
	method := zip.Store
	if strings.HasSuffix(name, ".csv") {
		method = zip.Deflate
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: modified})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

func (h *Handler) archiveFailed(c *echo.Context, err error) error {
	h.Logger.Error("received invoices: the ZIP download stopped", "path", c.Request().URL.Path, "error", err)
	return nil // the status is sent; nothing more can be said
}

// archiveName is a file's entry in the ZIP: the received date, the invoice's number in
// this service (unique) and the sender's file name without anything a ZIP reader could
// take for a folder.
func archiveName(r store.ReceivedInvoice) string {
	base := strings.Map(func(c rune) rune {
		if c < 0x20 || strings.ContainsRune(`/\:*?"<>|`, c) {
			return '_'
		}
		return c
	}, path.Base(strings.ReplaceAll(r.OriginalName, `\`, "/")))
	if base == "" || base == "." || base == ".." {
		base = "invoice"
	}
	return fmt.Sprintf("%s_%d_%s", r.ReceivedAt.In(pay.Tokyo()).Format("20060102"), r.ID, base)
}
