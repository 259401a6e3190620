package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// The example partner against the whole site: the buyer approves in a browser, the
// example exchanges the code with its PKCE verifier, uploads an invoice and creates a
// draft, which the buyer's drafts list shows with the application's name.
func TestExamplePartner(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	browser := env.Client(t)
	browser.SignIn(u.EmailAddress)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	ln.Close()
	require.NoError(t, webtest.Store().CreateOAuthClient(context.Background(), store.OAuthClient{ID: "example-partner",
		Name: "サンプル会計", RedirectURIs: []string{redirect}, Scopes: []string{"payments:read", "payments:draft", "suppliers:read"}}))

	pdf, err := invoicegen.RenderPDF(invoicegen.New(88).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	file := filepath.Join(t.TempDir(), "請求書.pdf")
	require.NoError(t, os.WriteFile(file, pdf, 0o600))

	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = Run(ctx, Config{Server: env.URL, ClientID: "example-partner", Redirect: redirect, File: file, Amount: 98765}, &out,
		func(authURL string) {
			// The buyer, in the browser: the consent page, 許可する, and the browser
			// follows the redirect to the example's listener.
			back := browser.Authorize(authURL, "approve")
			go func() {
				if res, err := http.Get(back.String()); err == nil {
					res.Body.Close()
				}
			}()
		})
	require.NoError(t, err, out.String())
	fmt.Print(out.String())
	assert.Contains(t, out.String(), "connected: scopes payments:read payments:draft suppliers:read")
	assert.Contains(t, out.String(), "uploaded 請求書.pdf")
	assert.Contains(t, out.String(), "resumes at /payments/add/invoiceinfo")
	drafts := browser.Get("/payments/draft")
	assert.Contains(t, drafts.Body, "サンプル会計が作成")
	assert.Contains(t, drafts.Body, "¥98,765")
}
