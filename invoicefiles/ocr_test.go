package invoicefiles_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/files"
	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// Recording a file with QueueOCR queues its reading with it: the "ocr" job (the value
// stored job rows carry), the file named in its payload, keyed by the file.
func TestQueueOCRQueuesTheFilesReading(t *testing.T) {
	ctx := context.Background()
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: "queue@files.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, store.NewInvoiceFile{
		StorageKey: "invoices/test-queue-ocr", OriginalName: "invoice.pdf", Size: 1000,
		MediaType: pay.FileTypePDF, SHA256: strings.Repeat("ab", 32), Pages: 1,
	}, invoicefiles.QueueOCR(ctx, db.Store))
	require.NoError(t, err)

	var jobs []store.Job
	require.NoError(t, db.Store.DB.SelectContext(ctx, &jobs, `SELECT id, kind, payload, unique_key, max_attempts FROM jobs
		WHERE unique_key = $1`, fmt.Sprintf("ocr-%d", f.ID)))
	require.Len(t, jobs, 1)
	assert.Equal(t, "ocr", invoicefiles.OCRJobKind)
	assert.Equal(t, invoicefiles.OCRJobKind, jobs[0].Kind)
	assert.Equal(t, 3, jobs[0].MaxAttempts)
	var p invoicefiles.OCRJob
	require.NoError(t, json.Unmarshal(jobs[0].Payload, &p))
	assert.Equal(t, invoicefiles.OCRJob{BuyerID: u.BuyerID, FileID: f.ID}, p)
}

// The same bytes uploaded again are not read again: the job copies the buyer's earlier
// reading (a reader without its tools proves nothing was read), and never another
// buyer's.
func TestTheSameFileIsNotReadTwice(t *testing.T) {
	ctx := context.Background()
	newBuyer := func(email string) int64 {
		u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
			BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
			EmailAddress: email, PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
		})
		require.NoError(t, err)
		return u.BuyerID
	}
	sum := strings.Repeat("cd", 32)
	file := func(buyerID int64, key string) store.InvoiceFile {
		f, err := db.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
			StorageKey: key, OriginalName: "invoice.pdf", Size: 1000, MediaType: pay.FileTypePDF, SHA256: sum, Pages: 1,
		}, invoicefiles.QueueOCR(ctx, db.Store))
		require.NoError(t, err)
		return f
	}
	job := func(buyerID, fileID int64) json.RawMessage {
		b, _ := json.Marshal(invoicefiles.OCRJob{BuyerID: buyerID, FileID: fileID})
		return b
	}
	buyer, other := newBuyer("twice@files.example"), newBuyer("twice-other@files.example")
	first := file(buyer, "invoices/twice-1")
	read := store.InvoiceFileOCR{Status: store.OCRDone, Fields: json.RawMessage(`{"total":{"value":"11000"}}`), Text: "請求書 ¥11,000", Ms: 2400}
	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, buyer, first.ID, read))

	job0 := &invoicefiles.OCR{Store: db.Store, Files: &files.Local{Dir: t.TempDir()}, Reader: &ocr.Reader{ToolDir: t.TempDir()}}
	again := file(buyer, "invoices/twice-2")
	require.NoError(t, job0.Run(ctx, job(buyer, again.ID)))
	got, err := db.Store.InvoiceFile(ctx, buyer, again.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRDone, got.OCRStatus, "copied, not read")
	assert.JSONEq(t, string(read.Fields), string(got.OCRFields))
	assert.Equal(t, read.Text, got.OCRText)

	// Another buyer's identical file is theirs to read: here, without the tools, it is not.
	theirs := file(other, "invoices/twice-3")
	require.NoError(t, job0.Run(ctx, job(other, theirs.ID)))
	got, err = db.Store.InvoiceFile(ctx, other, theirs.ID)
	require.NoError(t, err)
	assert.NotEqual(t, store.OCRDone, got.OCRStatus, "another buyer's reading is never copied")
}

// registry stands for account.Corporations: it knows one corporation.
type registry struct{ number, name string }

func (r registry) IssuerName(_ context.Context, n string) (string, bool) {
	return r.name, n == r.number
}

// A corporation's registration number read from the invoice names it in the registry:
// the registered name stands over the name read, and the fields say so.
func TestTheRegistryNamesTheIssuer(t *testing.T) {
	ctx := context.Background()
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: "registry@files.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	truth := invoicegen.New(21).Invoice()
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	require.NoError(t, err)
	fs := &files.Local{Dir: t.TempDir()}
	require.NoError(t, fs.Put(ctx, "invoices/registry", bytes.NewReader(pdf), int64(len(pdf)), pay.FileTypePDF))
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, store.NewInvoiceFile{
		StorageKey: "invoices/registry", OriginalName: "invoice.pdf", Size: int64(len(pdf)), MediaType: pay.FileTypePDF,
		SHA256: strings.Repeat("ef", 32), Pages: 1,
	}, invoicefiles.QueueOCR(ctx, db.Store))
	require.NoError(t, err)
	job := &invoicefiles.OCR{Store: db.Store, Files: fs, Registry: registry{truth.RegistrationNumber[1:], "株式会社 登録上の名前"}}
	payload, _ := json.Marshal(invoicefiles.OCRJob{BuyerID: u.BuyerID, FileID: f.ID})
	require.NoError(t, job.Run(ctx, payload))
	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	require.Equal(t, store.OCRDone, got.OCRStatus)
	var fields invoiceread.Fields
	require.NoError(t, json.Unmarshal(got.OCRFields, &fields))
	assert.Equal(t, truth.RegistrationNumber, fields.RegistrationNumber.Value)
	assert.Equal(t, "株式会社登録上の名前", fields.IssuerName.Value, "the registered name, not the printed one")
	assert.True(t, fields.IssuerFromRegistry)
}
