package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// The received invoices through the API: an upload refused stores nothing, a good one is
// a new received invoice with its file's hash and retention date; the list's search
// validates its query and finds it; another buyer gets 404 and an empty list. Every
// answer matches openapi.json (checkDocumented).
func TestReceiptInvoicesAPI(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)

	body, ct := multipartBody(t, "invoice_file", "memo.txt", []byte("not an invoice"))
	r := c.send(http.MethodPost, "/receipt_invoices/upload", body, ct)
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Zero(t, countFiles(t, u.BuyerID), "a refused file is not kept")

	doc := minimalPDF()
	body, ct = multipartBody(t, "invoice_file", "受け取った請求書.pdf", doc)
	r = c.send(http.MethodPost, "/receipt_invoices/upload", body, ct)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	sum := sha256.Sum256(doc)
	assert.Equal(t, hex.EncodeToString(sum[:]), r.str("sha256"))
	assert.Equal(t, "new", r.str("state"))
	assert.Equal(t, "新着", r.str("state_label"))
	assert.Equal(t, "upload", r.str("source"))
	assert.Equal(t, "受け取った請求書.pdf", r.str("file_name"))
	assert.NotEmpty(t, r.str("retain_until"))
	id := int64(r.num("id"))

	got := c.get(fmt.Sprintf("/receipt_invoices/%d", id))
	require.Equal(t, http.StatusOK, got.Status, got.String())
	assert.Equal(t, r.str("sha256"), got.str("sha256"))
	file := c.get(fmt.Sprintf("/invoices/files/%d", int64(got.num("file_id"))))
	assert.Equal(t, http.StatusOK, file.Status, "its file and reading are the invoice file's")

	list := c.get("/receipt_invoices?state=new")
	require.Equal(t, http.StatusOK, list.Status, list.String())
	assert.EqualValues(t, 1, list.num("count_all"))
	assert.EqualValues(t, 0, c.get("/receipt_invoices?state=paid").num("count_all"))
	// Nothing was read from this PDF: no date or amount, so the ranges do not find it.
	assert.EqualValues(t, 0, c.get("/receipt_invoices?from=2026-01-01&min=1").num("count_all"))
	bad := c.get("/receipt_invoices?state=deleted&from=2026-13-01&min=abc&size=1000")
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status, bad.String())
	assert.Contains(t, bad.Raw, "state")
	assert.Contains(t, bad.Raw, "from")
	assert.Contains(t, bad.Raw, "min")

	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := e.signedInAs(t, other)
	assert.Equal(t, http.StatusNotFound, oc.get(fmt.Sprintf("/receipt_invoices/%d", id)).Status)
	assert.EqualValues(t, 0, oc.get("/receipt_invoices").num("count_all"))
}
