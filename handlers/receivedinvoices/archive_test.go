package receivedinvoices_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/receivedinvoices"
	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
)

// The search's hits download as a ZIP: the index with each file's entry, and the files
// byte for byte as kept (their SHA-256 in the index). Only the buyer's own; a search with
// more hits than a ZIP takes goes back to the search and says why.
func TestSearchArchive(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	sent := map[string][]byte{}
	for i, name := range []string{"請求書A.pdf", `..\フォルダ\請求書B.pdf`} {
		b, err := invoicegen.RenderPDF(invoicegen.New(int64(40+i)).Invoice(), invoicegen.LayoutClassic)
		require.NoError(t, err, "needs the font from the ocr-tools task")
		require.Equal(t, http.StatusSeeOther, upload(t, c, name, b).StatusCode)
		sent[strings.TrimPrefix(name, `..\フォルダ\`)] = b
	}
	search := c.Get("/receipt-invoices/search")
	assert.Contains(t, search.Body, `href="/receipt-invoices/search.zip"`)

	res := c.Get("/receipt-invoices/search.zip")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "application/zip", res.Header.Get("Content-Type"))
	zr, err := zip.NewReader(bytes.NewReader([]byte(res.Body)), int64(len(res.Body)))
	require.NoError(t, err)
	require.Len(t, zr.File, 3, "the index and two files")
	assert.Equal(t, "index.csv", zr.File[0].Name)
	index := read(t, zr.File[0])
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(index, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, "ZIP内のファイル", rows[0][len(rows[0])-1])
	entry := regexp.MustCompile(`^\d{8}_\d+_(.+\.pdf)$`)
	for _, f := range zr.File[1:] {
		m := entry.FindStringSubmatch(f.Name)
		require.NotNil(t, m, "entry %q: no folder, date and number first", f.Name)
		assert.Equal(t, string(sent[m[1]]), read(t, f), "%s as it was sent", f.Name)
		assert.Contains(t, index, f.Name, "the index names it")
	}
	fmt.Printf("received invoices: ZIP of 2 hits, %d bytes\n", len(res.Body))

	// Another buyer's ZIP holds its own index alone.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	res = oc.Get("/receipt-invoices/search.zip")
	zr, err = zip.NewReader(bytes.NewReader([]byte(res.Body)), int64(len(res.Body)))
	require.NoError(t, err)
	assert.Len(t, zr.File, 1)

	// More hits than a ZIP takes: back to the search, with why.
	_, err = webtest.Store().DB.Exec(`WITH f AS (
		INSERT INTO invoice_files (buyer_id, storage_key, original_name, size, media_type, sha256, pages)
		SELECT $1, 'invoices/bulk/' || g, 'bulk.pdf', 10, 'application/pdf', md5(g::text) || md5(g::text), 1
		FROM generate_series(1, $2) g RETURNING id, created_at)
		INSERT INTO received_invoices (buyer_id, file_id, source, retain_until, received_at)
		SELECT $1, id, 'upload', (created_at + interval '9 years')::date, created_at FROM f`,
		other.BuyerID, receivedinvoices.MaxArchiveFiles+1)
	require.NoError(t, err)
	search = oc.Get("/receipt-invoices/search")
	assert.Contains(t, search.Body, "300件までです")
	assert.NotContains(t, search.Body, `href="/receipt-invoices/search.zip"`)
	res = oc.Get("/receipt-invoices/search.zip?counterparty=")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, oc.Get(res.Header.Get("Location")).Body, "該当が301件あります")
}

func read(t *testing.T, f *zip.File) string {
	t.Helper()
	rc, err := f.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b)
}

// An invoice already paid here from another upload of the same file is flagged on the
// page, with a link to that payment.
func TestPaidElsewhereInTheServiceIsFlagged(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	b, err := invoicegen.RenderPDF(invoicegen.New(77).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err)
	first := upload(t, c, "請求書.pdf", b).Header.Get("Location")
	second := upload(t, c, "請求書（再送）.pdf", b).Header.Get("Location")
	var fileID int64
	require.NoError(t, webtest.Store().DB.Get(&fileID, `SELECT file_id FROM received_invoices WHERE id = $1`, strings.TrimPrefix(second, "/receipt-invoices/")))
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社二重請求",
		NameKana: "ニジュウセイキュウ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	id, err := webtest.Store().CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.InProgress, Amount: 98296})
	require.NoError(t, err)
	_, err = webtest.Store().DB.Exec(`UPDATE invoices SET file_id = $1 WHERE id = $2`, fileID, id)
	require.NoError(t, err)

	page := c.Get(first)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "同じ請求書がすでに届いている可能性があります")
	assert.Contains(t, page.Body, "に申請したカード払い（"+pay.InvoiceNumber(id)+"・株式会社二重請求・¥98,296")
	assert.Contains(t, page.Body, fmt.Sprintf(`href="/payments/review/%d"`, id))
}
