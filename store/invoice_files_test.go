package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
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

// queueFileJob is CreateInvoiceFile's also in store's tests: a job of a test kind, keyed
// by the file. The real one (invoicefiles.QueueOCR, tested there) is a level up, and
// store's tests import nothing above store (the house rules); what store answers for is
// running also with the new row in the row's transaction.
func queueFileJob(ctx context.Context) func(tx *sqlx.Tx, f store.InvoiceFile) error {
	return func(tx *sqlx.Tx, f store.InvoiceFile) error {
		_, err := db.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: testFileJobKind,
			Payload: map[string]int64{"buyer_id": f.BuyerID, "file_id": f.ID}, UniqueKey: fmt.Sprintf("test-file-%d", f.ID)})
		return err
	}
}

const testFileJobKind = "test_file_job"

func TestCreateInvoiceFileQueuesItsJob(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "create@files.example", pay.Corporation)
	nf := newInvoiceFile(1)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, nf, queueFileJob(ctx))
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
		fmt.Sprintf("test-file-%d", f.ID)))
	require.Len(t, jobs, 1)
	assert.Equal(t, testFileJobKind, jobs[0].Kind)
	assert.JSONEq(t, fmt.Sprintf(`{"buyer_id": %d, "file_id": %d}`, u.BuyerID, f.ID), string(jobs[0].Payload))

	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	assert.Equal(t, f.ID, got.ID)
	assert.Equal(t, f.CreatedAt.Unix(), got.CreatedAt.Unix())

	// A job that cannot be queued takes the file with it, and no file goes without one.
	failing := newInvoiceFile(7)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, failing, func(*sqlx.Tx, store.InvoiceFile) error { return errors.New("no queue") })
	require.Error(t, err)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, failing, nil)
	require.Error(t, err)
	var n int
	require.NoError(t, db.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM invoice_files WHERE storage_key = $1`, failing.StorageKey))
	assert.Zero(t, n)
}

func TestCreateInvoiceFileRefusedLeavesNoJob(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "refused@files.example", pay.Corporation)
	count := func() int {
		var n int
		require.NoError(t, db.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM jobs WHERE kind = $1`, testFileJobKind))
		return n
	}
	before := count()
	bad := newInvoiceFile(2)
	bad.MediaType = "image/gif"
	_, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, bad, queueFileJob(ctx))
	require.Error(t, err)
	// The same key twice: the second insert fails and queues nothing.
	ok := newInvoiceFile(3)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, ok, queueFileJob(ctx))
	require.NoError(t, err)
	_, err = db.Store.CreateInvoiceFile(ctx, u.BuyerID, ok, queueFileJob(ctx))
	require.Error(t, err)
	assert.Equal(t, before+1, count())
}

func TestInvoiceFilesAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@files.example", pay.Corporation)
	b := newBuyer(t, "b@files.example", pay.SoleProprietor)
	f, err := db.Store.CreateInvoiceFile(ctx, a.BuyerID, newInvoiceFile(4), queueFileJob(ctx))
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
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, newInvoiceFile(5), queueFileJob(ctx))
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
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, newInvoiceFile(6), queueFileJob(ctx))
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
