package api_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
)

func TestReceiptURLsAfterTheTransfer(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "4111111111111111")
	r := b.submit("receipts-1", b.flow("100000"))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	// Before the transfer: 409.
	early := b.c.get("/invoices/" + id(r) + "/receipts/download/url")
	assert.Equal(t, http.StatusConflict, early.Status, early.String())
	assert.Equal(t, "invalid_state", early.str("status"))

	// Screened, captured and transferred (the console's steps, straight in the store).
	_, err := webtest.Store().DB.Exec(`UPDATE invoices SET examination_status = 4, card_status = 'captured',
		captured_at = now(), transferred_at = now() WHERE id = $1`, int64(r.num("id")))
	require.NoError(t, err)
	urls := b.c.get("/invoices/" + id(r) + "/receipts/download/url")
	require.Equal(t, http.StatusOK, urls.Status, urls.String())
	assert.NotEmpty(t, urls.str("expires_at"))
	for key, want := range map[string][]string{
		"statement_url":   {"支払明細書", "¥100,000", "¥3,000", "¥103,000", "テスト商事株式会社 御中", "株式会社APIテスト", "1234567"},
		"fee_invoice_url": {"適格請求書", "登録番号 T1180301018771", "¥3,000", "消費税額（10%） ¥272", "請求書カード払い運営株式会社"},
	} {
		u := urls.str(key)
		require.True(t, strings.HasPrefix(u, "http://localhost/api/v1/invoices/receipts/signed_download/"), u)
		// Signed: no session needed; the test server stands at another origin than BASE_URL.
		res, err := http.Get(e.URL + strings.TrimPrefix(u, "http://localhost"))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, string(body))
		assert.Equal(t, "application/pdf", res.Header.Get("Content-Type"))
		assert.Contains(t, res.Header.Get("Content-Disposition"), "attachment")
		text := pdfText(t, body)
		for _, w := range want {
			assert.Contains(t, text, w, key)
		}
		// Altered: 403.
		bad, err := http.Get(e.URL + strings.TrimPrefix(u, "http://localhost") + "x")
		require.NoError(t, err)
		bad.Body.Close()
		assert.Equal(t, http.StatusForbidden, bad.StatusCode)
	}
	// Another buyer: 404.
	other := newPayingBuyer(t, e, "")
	assert.Equal(t, http.StatusNotFound, other.c.get("/invoices/"+id(r)+"/receipts/download/url").Status)
}

func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "r.pdf")
	require.NoError(t, os.WriteFile(file, pdf, 0o600))
	out, err := exec.Command("pdftotext", "-layout", file, "-").Output()
	require.NoError(t, err, "pdftotext (task ocr-tools)")
	return strings.Join(strings.Fields(string(out)), " ")
}
