package payments_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
)

// A new account for a registered supplier, entered in the payment journey, redirects
// that supplier's money like adding it on the supplier's page: the journey's account
// step asks for the second factor again and goes on only with a right code.
func TestJourneysNewAccountForARegisteredSupplierNeedsTheSecondFactor(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	p.c.Get("/payments/add/invoiceinfo?new=1")
	res := p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = p.c.Post("/payments/add/account", url.Values{"account": {"new"}})
	require.Equal(t, "/payments/add/account/new", res.Header.Get("Location"))
	page := p.c.Get("/payments/add/account/new?bank_code=0001&branch_code=001")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, `name="step_up_code"`)
	code := p.env.WaitCode(t, p.u.EmailAddress)

	form := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"7777777"}, "holder_name": {"ｶ)ﾔﾏﾀﾞ"}}
	res = p.c.Post("/payments/add/account/new", form)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, `id="step_up_code-error"`)
	form.Set("step_up_code", code)
	res = p.c.Post("/payments/add/account/new", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/payments/add/invoice", res.Header.Get("Location"))

	// A confirm more than 5 minutes later (or a draft made elsewhere) goes back to the
	// account step: no payment to the new account without a fresh factor.
	res = p.c.Post("/payments/add/invoice", invoiceForm("50000"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/add/confirm")
	require.Equal(t, http.StatusOK, confirm.StatusCode)
	webtest.GiveFactor(t, p.u, time.Now().Add(-6*time.Minute))
	res = p.submit(t, confirm)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/payments/add/account/new", res.Header.Get("Location"))
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM supplier_accounts WHERE buyer_id = $1`, p.u.BuyerID))
	assert.Equal(t, 1, n, "the new account was not registered")
}
