package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
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

// The receiving address and the marks through the API: null until issued, a new one
// on each POST (the old retired), each buyer its own; a mark needs its reason, is
// refused over a change made meanwhile (409), and is scoped by buyer.
func TestReceiptInvoiceAddressAndMarkAPI(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)

	r := c.get("/receipt_invoices/address")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Contains(t, r.Raw, `"address":null`)
	assert.Equal(t, webtest.InboundMailDomain, r.str("domain"))
	first := c.post("/receipt_invoices/address", nil)
	require.Equal(t, http.StatusOK, first.Status, first.String())
	assert.Regexp(t, `^[a-z0-9]{16}@`+regexp.QuoteMeta(webtest.InboundMailDomain)+`$`, first.str("address"))
	assert.Equal(t, first.str("address"), c.get("/receipt_invoices/address").str("address"))
	second := c.post("/receipt_invoices/address", nil)
	assert.NotEqual(t, first.str("address"), second.str("address"))

	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := e.signedInAs(t, other)
	assert.Contains(t, oc.get("/receipt_invoices/address").Raw, `"address":null`, "another buyer has its own")

	body, ct := multipartBody(t, "invoice_file", "請求書.pdf", minimalPDF())
	up := c.send(http.MethodPost, "/receipt_invoices/upload", body, ct)
	require.Equal(t, http.StatusCreated, up.Status, up.String())
	path := fmt.Sprintf("/receipt_invoices/%d/mark", int64(up.num("id")))

	bad := c.post(path, map[string]string{"disposition": "not_to_pay"})
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Status, "not to pay needs its reason")
	assert.Contains(t, bad.Raw, "reason")
	assert.Equal(t, http.StatusNotFound, oc.post(path, map[string]string{"disposition": "paid_elsewhere"}).Status)
	ok := c.post(path, map[string]string{"disposition": "not_to_pay", "reason": "重複して届いたため", "from": "open"})
	require.Equal(t, http.StatusOK, ok.Status, ok.String())
	assert.Equal(t, "set_aside", ok.str("state"))
	assert.Equal(t, "重複して届いたため", ok.str("disposition_reason"))
	stale := c.post(path, map[string]string{"disposition": "paid_elsewhere", "from": "open"})
	assert.Equal(t, http.StatusConflict, stale.Status, "marked meanwhile")
	again := c.post(path, map[string]string{"disposition": "open", "from": "not_to_pay"})
	assert.Equal(t, "new", again.str("state"))
}
