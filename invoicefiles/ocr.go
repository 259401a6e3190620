// Package invoicefiles is what the service does with an uploaded invoice, whichever page
// or API call asks: Service saves an upload (checked by pay.CheckInvoiceFile, its bytes
// in the file store, its row and its reading queued in one transaction), matches a file's
// reading against the buyer's suppliers, draws its preview, and signs the URLs that send
// it. The reading itself is the "ocr" job that QueueOCR enqueues with each upload: it
// opens the file from the file store, reads it (package ocr: the PDF's text layer, or
// tesseract after image clean-up), extracts the invoice's fields (package invoiceread)
// and stores them with their confidences for the pages and the API to pre-fill. A
// missing tool or a failed reading never blocks anything: the file stays, and the buyer
// types the fields. HTTP stays in handlers/web: reading the request, the headers of a
// download and of a preview.
package invoicefiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/files"
	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/pay"
	"cardpay/store"
)

// DefaultTimeout bounds one file's reading: 20 scanned pages at a few seconds each.
const DefaultTimeout = 3 * time.Minute

// OCRJobKind is the job that reads an uploaded invoice file (OCR.Run).
const OCRJobKind = "ocr"

// OCRJob is the payload of an OCRJobKind job. The buyer is in it so that the job loads
// the file the scoped way, like every other reader.
type OCRJob struct {
	BuyerID int64 `json:"buyer_id"`
	FileID  int64 `json:"file_id"`
}

// QueueOCR is the also of st.CreateInvoiceFile: it enqueues the new file's reading in
// the transaction that records the file, so that every file has its job and a
// rolled-back upload none.
func QueueOCR(ctx context.Context, st *store.Store) func(tx *sqlx.Tx, f store.InvoiceFile) error {
	return func(tx *sqlx.Tx, f store.InvoiceFile) error {
		_, err := st.EnqueueJob(ctx, tx, store.NewJob{
			Kind:      OCRJobKind,
			Payload:   OCRJob{BuyerID: f.BuyerID, FileID: f.ID},
			UniqueKey: fmt.Sprintf("ocr-%d", f.ID),
			// OCR failing for good leaves the buyer typing, which is fine; a few tries
			// cover a restart, more would only burn CPU.
			MaxAttempts: 3,
		})
		return err
	}
}

// OCR is the OCRJobKind job's handler.
type OCR struct {
	Store  *store.Store
	Files  files.Store
	Reader *ocr.Reader
	// Registry names a corporation by its corporate number (account.Corporations): the
	// issuer's registered name then stands over the name read. nil reads names only.
	Registry Registry
	Logger   *slog.Logger
}

// Registry names an open corporation by its 13-digit corporate number (the NTA's
// 法人番号 registry, or the corporations the service knows), with its furigana ("" when
// it has none); ok is false when it does not know one. IssuerNames answers several
// numbers at once (the readings of a number read a digit wrong), those it knows.
type Registry interface {
	IssuerName(ctx context.Context, corporateNumber string) (name, kana string, ok bool)
	IssuerNames(ctx context.Context, corporateNumbers []string) map[string]store.Corporation
}

// Run reads the file named by the job's payload (OCRJob). Only a shutdown (the
// context ending) or an unreadable job row is returned as an error, so that the job is
// retried; a failed reading is recorded on the file and the job ends.
func (o *OCR) Run(ctx context.Context, payload json.RawMessage) error {
	var job OCRJob
	if err := json.Unmarshal(payload, &job); err != nil {
		return fmt.Errorf("invoicefiles: ocr job payload: %w", err)
	}
	f, err := o.Store.InvoiceFile(ctx, job.BuyerID, job.FileID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the file is gone: nothing to read
	}
	if err != nil {
		return err
	}
	// The same bytes uploaded again (a double click, the same invoice from the file page
	// and the API): the reading is copied, never done twice.
	if done, ok, err := o.Store.InvoiceFileReading(ctx, job.BuyerID, f.SHA256, f.ID); err != nil {
		return err
	} else if ok {
		o.logger().Info("invoice read before: reading copied", "file", f.ID)
		return o.Store.SetInvoiceFileOCR(ctx, job.BuyerID, job.FileID, done)
	}
	if err := o.Store.SetInvoiceFileOCR(ctx, job.BuyerID, job.FileID, store.InvoiceFileOCR{Status: store.OCRRunning}); err != nil {
		return err
	}
	result := o.read(ctx, f)
	if ctx.Err() != nil {
		// Shutting down: back to pending, and the job runs again on another worker.
		_ = o.Store.SetInvoiceFileOCR(context.WithoutCancel(ctx), job.BuyerID, job.FileID, store.InvoiceFileOCR{Status: store.OCRPending})
		return ctx.Err()
	}
	return o.Store.SetInvoiceFileOCR(ctx, job.BuyerID, job.FileID, result)
}

func (o *OCR) read(ctx context.Context, f store.InvoiceFile) store.InvoiceFileOCR {
	rc, err := o.Files.Open(ctx, f.StorageKey)
	if err != nil {
		return o.failed(f, store.OCRFailed, "open", err)
	}
	b, err := io.ReadAll(io.LimitReader(rc, pay.MaxInvoiceFileBytes+1))
	rc.Close()
	if err != nil {
		return o.failed(f, store.OCRFailed, "read", err)
	}
	reader := o.Reader
	if reader == nil {
		reader = &ocr.Reader{Timeout: DefaultTimeout, Logger: o.Logger}
	}
	start := time.Now()
	rd, err := reader.Open(ctx, f.MediaType, b)
	if errors.Is(err, ocr.ErrUnavailable) {
		return o.failed(f, store.OCRUnavailable, "tools", err)
	}
	if err != nil {
		return o.failed(f, store.OCRFailed, "ocr", err)
	}
	read, rereads := ReadFields(ctx, rd, knownPlaces(ctx, o.Store, f.BuyerID, o.logger()))
	rd.Close()
	res, ms := rd.Result, time.Since(start).Milliseconds()
	if o.Registry != nil {
		if number, ok := read.CorporateNumber(); ok {
			if name, kana, ok := o.Registry.IssuerName(ctx, number); ok {
				read.UseRegisteredIssuer(name, kana)
			}
		} else if len(read.RegistrationCandidates) > 0 {
			// A number read a digit wrong: the registry says which of its readings is the
			// issuer's (invoiceread.Fields.ChooseRegistration), all asked at once.
			known := o.Registry.IssuerNames(ctx, read.RegistrationCandidates)
			read.ChooseRegistration(func(number string) (string, string, bool) {
				c, ok := known[number]
				return c.Name, c.NameKana, ok
			})
		}
	}
	fields, err := json.Marshal(read)
	if err != nil {
		return o.failed(f, store.OCRFailed, "fields", err)
	}
	var lines []byte
	if placed := Lines(rd.Lines); len(placed) > 0 && !placed[0].Box.Empty() {
		// Kept for what a payment of the file learns (a PDF's text layer has no boxes).
		if lines, err = invoiceread.MarshalLines(placed); err != nil {
			return o.failed(f, store.OCRFailed, "lines", err)
		}
	}
	o.logger().Info("invoice read", "file", f.ID, "source", res.Source, "pages", res.Pages, "rereads", rereads,
		"ms", ms, "tool_max_rss_kb", res.MaxRSSKB)
	return store.InvoiceFileOCR{Status: store.OCRDone, Fields: fields, Lines: lines, Text: res.Text, Ms: int(ms)}
}

// ReadFields extracts an invoice's fields from its reading, then reads the fields it
// found unsure or not at all again from their crops of the page (invoiceread.Rereads),
// then those their answers placed (invoiceread.NextRereads), then, when placesOf (nil:
// none) knows where the issuer prints an amount or a date still missed, from there
// (invoiceread.PlacedRereads), and last guesses what none told (invoiceread.Guess); it
// answers how many crops were read.
// placesOf is asked once, with the fields read so far (the issuer is found by them). The
// job and the accuracy run (cmd/ocraccuracy) read with it alike. A crop that cannot be
// read leaves its field as the page's reading had it.
func ReadFields(ctx context.Context, rd *ocr.Reading, placesOf func(invoiceread.Fields) []invoiceread.Place) (invoiceread.Fields, int) {
	lines := Lines(rd.Lines)
	f := invoiceread.Extract(rd.Text, lines)
	first := invoiceread.Rereads(lines, f)
	n := reread(ctx, rd, &f, first)
	if ctx.Err() == nil {
		// What the first crops read (the bank's block: a bank, a number) places more.
		n += reread(ctx, rd, &f, invoiceread.NextRereads(lines, f, first))
	}
	if placesOf != nil && ctx.Err() == nil {
		if places := placesOf(f); len(places) > 0 {
			n += reread(ctx, rd, &f, invoiceread.PlacedRereads(lines, f, places))
		}
	}
	invoiceread.Guess(&f)
	return f, n
}

// Lines are the OCR adapter's lines in invoiceread's terms.
func Lines(in []ocr.Line) []invoiceread.Line {
	lines := make([]invoiceread.Line, len(in))
	for i, l := range in {
		ws := make([]invoiceread.Word, len(l.Words))
		for j, w := range l.Words {
			ws[j] = invoiceread.Word{Text: w.Text, Box: w.Box}
		}
		lines[i] = invoiceread.Line{Text: l.Text, Confidence: l.Confidence, Page: l.Page, Box: l.Box, Words: ws}
	}
	return lines
}

// reread reads the crops asked for and refines f with their answers; it answers how many
// were read. A seal's crop of a page that came in one bit is not read: the seal is as
// black as the name there, and on the faxes of task ocr:accuracy the crop never read a
// name the page had not (~0.3 s a page).
func reread(ctx context.Context, rd *ocr.Reading, f *invoiceread.Fields, asked []invoiceread.Reread) int {
	got := make([]invoiceread.Line, len(asked))
	n := 0
	for i, rr := range asked {
		if rr.Seal && oneBit(rd.PageStats, rr.Page) {
			continue
		}
		n++
		l, err := rd.Reread(ctx, ocr.Crop{Page: rr.Page, Box: rr.Box, Chars: cropChars[rr.Chars], Widen: rr.Widen, HalfWidth: rr.HalfWidth,
			Block: rr.Block, Seal: rr.Seal})
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			continue
		}
		got[i] = invoiceread.Line{Text: l.Text, Confidence: l.Confidence}
	}
	invoiceread.Refine(f, asked, got)
	return n
}

// oneBit says whether page came in black and white alone (ocr.PageStat.OneBit).
func oneBit(stats []ocr.PageStat, page int) bool {
	for _, s := range stats {
		if s.Page == page {
			return s.OneBit
		}
	}
	return false
}

// cropChars are the OCR adapter's character sets for the kinds of field.
var cropChars = map[invoiceread.Chars]string{
	invoiceread.CharsAny:    "",
	invoiceread.CharsKana:   ocr.CharsKana,
	invoiceread.CharsDigits: ocr.CharsDigits,
	invoiceread.CharsDate:   ocr.CharsDate,
	invoiceread.CharsTNo:    "T0123456789",
	invoiceread.CharsType:   "普通当座預金総合()",
}

// failed records why a file could not be read; the log names the file, never its text.
func (o *OCR) failed(f store.InvoiceFile, status, step string, err error) store.InvoiceFileOCR {
	o.logger().Warn("invoice not read", "file", f.ID, "step", step, "status", status, "error", err)
	return store.InvoiceFileOCR{Status: status, Error: err.Error()}
}

func (o *OCR) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}
