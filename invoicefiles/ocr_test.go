package invoicefiles_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/invoicefiles"
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
