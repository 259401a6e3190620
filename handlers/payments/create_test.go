package payments_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/payments"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
)

// upload posts the plain form (no JavaScript) with one file.
func upload(t *testing.T, c *webtest.Client, name string, content []byte) webtest.Response {
	t.Helper()
	return c.PostFile("/payments/create", pay.InvoiceFileField, name, content)
}

func fileCount(t *testing.T, buyerID int64) int {
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM invoice_files WHERE buyer_id = $1`, buyerID))
	return n
}

func TestUploadPageRefusesBadFilesAndStoresNothing(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	page := c.Get("/payments/create")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `type="file"`)
	assert.Contains(t, page.Body, `name="invoice_file"`)
	assert.Contains(t, page.Body, `data-island="invoice-upload"`)

	for _, tc := range []struct{ name, file, content string }{
		{"empty", "invoice.pdf", ""},
		{"not a PDF", "invoice.pdf", "GIF89a not an invoice"},
		{"a text file", "memo.txt", "%PDF-1.4 hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, want := pay.CheckInvoiceFile(tc.file, []byte(tc.content))
			require.NotEmpty(t, want)
			res := upload(t, c, tc.file, []byte(tc.content))
			assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
			assert.Contains(t, res.Body, "<title>エラー：")
			webtest.AssertFieldError(t, res, pay.InvoiceFileField, want)
		})
	}
	assert.Zero(t, fileCount(t, u.BuyerID), "a refused file is not stored")
}

// Over the buyer's uploads at once, the plain form answers 429 with Retry-After and the
// refusal on the file field, reads nothing and stores nothing.
func TestUploadPageOverTheUploadsAtOnce(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	// The buyer's other uploads, still running.
	e := echo.New()
	for range web.MaxUploadsPerBuyer {
		release, msg := env.App.UploadSlot(e.NewContext(httptest.NewRequest(http.MethodPost, "/", nil), httptest.NewRecorder()), u.BuyerID)
		require.Empty(t, msg)
		defer release()
	}
	res := upload(t, c, "請求書.pdf", []byte("%PDF-1.4 not read"))
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.Equal(t, "5", res.Header.Get("Retry-After"))
	assert.Contains(t, res.Body, "<title>エラー：")
	assert.Contains(t, res.Body, `href="#`+pay.InvoiceFileField+`"`, "the error summary links to the file field")
	assert.Contains(t, res.Body, web.MsgUploadsPerBuyer)
	assert.Zero(t, fileCount(t, u.BuyerID))

	// Another buyer is not held up.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	c2 := env.Client(t)
	c2.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusUnprocessableEntity, upload(t, c2, "請求書.pdf", []byte("GIF89a")).StatusCode)
}

// A text PDF goes through the whole way: the plain form, the stored file, the OCR job
// (pdftotext), and the file's page with the fields read, which another buyer cannot open.
func TestUploadedInvoiceIsReadAndShownToItsOwnerOnly(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	truth := invoicegen.New(7).Invoice()
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")

	res := upload(t, c, "請求書.pdf", pdf)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.Regexp(t, `^/payments/create/files/\d+$`, loc)
	assert.Equal(t, 1, fileCount(t, u.BuyerID))

	var page webtest.Response
	require.Eventually(t, func() bool {
		page = c.Get(loc)
		return page.StatusCode == http.StatusOK && !strings.Contains(page.Body, "読み取り中")
	}, 60*time.Second, 200*time.Millisecond, "the OCR job finishes")
	assert.Contains(t, page.Body, "請求書.pdf")
	assert.Contains(t, page.Body, "請求書から読み取りました")
	assert.Contains(t, page.Body, pay.Yen(truth.Total), "the total read from the text layer")
	assert.Contains(t, page.Body, truth.RegistrationNumber)
	assert.NotContains(t, page.Body, "http-equiv", "the page never reloads itself")

	// The download link is the owner's, signed, and sends the bytes unchanged.
	m := regexp.MustCompile(`href="(/api/v1/invoices/files/signed_download/[^"]+)"`).FindStringSubmatch(page.Body)
	require.Len(t, m, 2, "a signed download link")
	dl := c.Get(strings.ReplaceAll(m[1], "&amp;", "&"))
	require.Equal(t, http.StatusOK, dl.StatusCode)
	assert.Equal(t, string(pdf), dl.Body)
	assert.Contains(t, dl.Header.Get("Content-Disposition"), "attachment")
	assert.Equal(t, "nosniff", dl.Header.Get("X-Content-Type-Options"))

	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusNotFound, oc.Get(loc).StatusCode, "another buyer's file is not found")
	assert.Equal(t, http.StatusNotFound, c.Get(fmt.Sprintf("/payments/create/files/%d", 1<<40)).StatusCode)
}

// toolsMissing stands for a machine without tesseract and poppler.
type toolsMissing struct{ checks *int }

func (m toolsMissing) Available(context.Context) error {
	*m.checks++
	return errors.New("ocr: tesseract missing")
}

// Without the OCR tools the upload page says, before anything is uploaded, that the
// invoice will not be read and the buyer types it; in development it gives the command
// that installs them. The check runs at most once a minute, not on every view.
func TestUploadPageSaysWhenReadingIsUnavailable(t *testing.T) {
	for _, dev := range []bool{false, true} {
		env := webtest.New(t, func(d *web.Deps) { d.Development = dev })
		checks := 0
		env.App.InvoiceFiles.Tools = toolsMissing{&checks}
		u := webtest.NewBuyer(t, pay.Corporation, "")
		c := env.Client(t)
		c.SignIn(u.EmailAddress)
		for range 3 {
			page := c.Get("/payments/create")
			require.Equal(t, http.StatusOK, page.StatusCode)
			assert.Contains(t, page.Body, "現在、請求書の自動読み取りを利用できません。")
			assert.Equal(t, dev, strings.Contains(page.Body, payments.OCRToolsCommand), "the install command in development only (dev %v)", dev)
		}
		assert.Equal(t, 1, checks, "one check for three views")
	}
	// With the tools installed (the test command installs them: task ocr-tools), no notice.
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	assert.NotContains(t, c.Get("/payments/create").Body, "自動読み取りを利用できません")
}
