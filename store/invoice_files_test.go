package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// testStorageKey is unique per call and has no run of digits, which the database's
// card-number scan (storetest) would rightly flag.
func testStorageKey(n int) string {
	letters := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return 'g' + (r - '0')
		}
		return r
	}, fmt.Sprintf("%d-%x", n, time.Now().UnixNano()))
	return "invoices/2026/01/test-" + letters
}

func newInvoiceFile(n int) store.NewInvoiceFile {
	return store.NewInvoiceFile{
		StorageKey:   testStorageKey(n),
		OriginalName: "請求書（1月分）.pdf",
		Size:         12345,
		MediaType:    pay.FileTypePDF,
		SHA256:       strings.Repeat("ab", 32),
		Pages:        2,
	}
}

func TestCreateInvoiceFileQueuesItsOCRJob(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "create@files.example", pay.Corporation)
	nf := newInvoiceFile(1)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, nf)
	require.NoError(t, err)
	assert.Equal(t, u.BuyerID, f.BuyerID)
	assert.Equal(t, nf.StorageKey, f.StorageKey)
	assert.Equal(t, nf.OriginalName, f.OriginalName)
	assert.Equal(t, nf.Size, f.Size)
	assert.Equal(t, nf.MediaType, f.MediaType)
	assert.Equal(t, nf.SHA256, f.SHA256)
	assert.Equal(t, 2, f.Pages)
	assert.Equal(t, store.OCRPending, f.OCRStatus)
	assert.JSONEq(t, `{}`, string(f.OCRFields))
	assert.Nil(t, f.LockedAt)

	var jobs []store.Job
	require.NoError(t, db.Store.DB.SelectContext(ctx, &jobs, `SELECT id, kind, payload, unique_key FROM jobs WHERE unique_key = $1`,
		fmt.Sprintf("ocr-%d", f.ID)))
	require.Len(t, jobs, 1)
	assert.Equal(t, store.OCRJobKind, jobs[0].Kind)
	var p store.OCRJob
	require.NoError(t, json.Unmarshal(jobs[0].Payload, &p))
	assert.Equal(t, store.OCRJob{BuyerID: u.BuyerID, FileID: f.ID}, p)

	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, f.ID, got.ID)
	assert.Equal(t, f.CreatedAt.Unix(), got.CreatedAt.Unix())
}

func TestCreateInvoiceFileRefusedLeavesNoJob(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "refused@files.example", pay.Corporation)
	count := func() int {
		var n int
		require.NoError(t, db.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM jobs WHERE kind = 'ocr'`))
		return n
	}
	before := count()
	bad := newInvoiceFile(2)
	bad.MediaType = "image/gif"
	_, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, bad)
	require.Error(t, err)
	// The same key twice: the second insert fails and queues nothing.
	ok := newInvoiceFile(3)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, ok)
	require.NoError(t, err)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, ok)
	require.Error(t, err)
	assert.Equal(t, before+1, count())
}

func TestInvoiceFilesAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@files.example", pay.Corporation)
	b := newBuyer(t, "b@files.example", pay.SoleProprietor)
	f, err := db.Store.CreateInvoiceFile(ctx, a.BuyerID, newInvoiceFile(4))
	require.NoError(t, err)

	_, err = db.Store.InvoiceFile(ctx, b.BuyerID, f.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)
	err = db.Store.SetInvoiceFileOCR(ctx, b.BuyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRDone})
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.LockInvoiceFile(ctx, b.BuyerID, f.ID, time.Now())
	assert.ErrorIs(t, err, store.ErrNotFound)

	got, err := db.Store.InvoiceFile(ctx, a.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRPending, got.OCRStatus, "the other buyer changed nothing")
	assert.Nil(t, got.LockedAt)
}

func TestSetInvoiceFileOCR(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "ocr@files.example", pay.Corporation)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, newInvoiceFile(5))
	require.NoError(t, err)

	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRRunning}))
	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRRunning, got.OCRStatus)

	fields := json.RawMessage(`{"total": {"value": 110000, "confidence": 0.97}, "due_date": {"value": "2026-01-31", "confidence": 0.9}}`)
	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{
		Status: store.OCRDone, Fields: fields, Text: "ご請求金額 ¥110,000\f2ページ目", Ms: 1234}))
	got, err = db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRDone, got.OCRStatus)
	assert.JSONEq(t, string(fields), string(got.OCRFields))
	assert.Equal(t, "ご請求金額 ¥110,000\f2ページ目", got.OCRText)
	assert.Equal(t, 1234, got.OCRMs)

	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{
		Status: store.OCRUnavailable, Error: "tesseract が見つかりません"}))
	got, err = db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRUnavailable, got.OCRStatus)
	assert.Equal(t, "tesseract が見つかりません", got.OCRError)
	assert.JSONEq(t, `{}`, string(got.OCRFields))

	assert.Error(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{Status: "maybe"}),
		"only the known states")
}

func TestLockInvoiceFileOnceAndTheFileStaysFixed(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "lock@files.example", pay.Corporation)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, newInvoiceFile(6))
	require.NoError(t, err)

	first := time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)
	at, err := db.Store.LockInvoiceFile(ctx, u.BuyerID, f.ID, first)
	require.NoError(t, err)
	assert.True(t, first.Equal(at))
	at, err = db.Store.LockInvoiceFile(ctx, u.BuyerID, f.ID, first.Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, first.Equal(at), "the first lock stands")

	// OCR may still finish after the payment was submitted.
	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRDone}))

	// Whatever code tries, the database keeps the file and the lock as they are.
	for _, update := range []string{
		`UPDATE invoice_files SET sha256 = repeat('cd', 32) WHERE id = $1`,
		`UPDATE invoice_files SET storage_key = 'invoices/2026/01/other' WHERE id = $1`,
		`UPDATE invoice_files SET original_name = 'other.pdf' WHERE id = $1`,
		`UPDATE invoice_files SET size = size + 1 WHERE id = $1`,
		`UPDATE invoice_files SET locked_at = NULL WHERE id = $1`,
		`UPDATE invoice_files SET locked_at = locked_at + interval '1 day' WHERE id = $1`,
	} {
		_, err := db.Store.DB.ExecContext(ctx, update, f.ID)
		assert.ErrorContains(t, err, "is fixed once stored", update)
	}
	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, f.SHA256, got.SHA256)
	require.NotNil(t, got.LockedAt)
	assert.True(t, first.Equal(*got.LockedAt))
}
