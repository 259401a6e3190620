package payments_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// An uploaded invoice starts the journey: what it read fills the form and says so, the
// supplier and account it matched are chosen, and what the buyer then enters differently
// must be acknowledged on the confirm page.
func TestJourneyFromAnUploadedInvoice(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	_, due := transferDay()
	file := readFile(t, p.env, p.u.BuyerID, map[string]any{
		"issuer_name":         readAs("株式会社山田商事", 0.9),
		"registration_number": readAs("T1180301018771", 0.95),
		"total":               readAs(110000, 0.95),
		"due_date":            readAs(due, 0.9),
		"bank_name":           readAs("みずほ銀行", 0.9),
		"branch_name":         readAs("東京営業部", 0.9),
		"account_type":        readAs(int(pay.AccountOrdinary), 0.9),
		"account_number":      readAs("1234567", 0.9),
	})
	id := strings.TrimPrefix(file, "/payments/create/files/")
	page := p.c.Get(file)
	assert.Contains(t, page.Body, "/payments/add/invoiceinfo?file="+id)
	res := p.c.Get("/payments/add/invoiceinfo?file=" + id)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	step := p.c.Get("/payments/add/invoiceinfo")
	require.Equal(t, http.StatusOK, step.StatusCode)
	assert.Contains(t, step.Body, "アップロードした請求書の内容を読み取り")
	assert.Regexp(t, `value="`+strconv.FormatInt(p.supplier.ID, 10)+`" checked`, step.Body, "the matched supplier is chosen")
	p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	acct := p.c.Get("/payments/add/account")
	assert.Regexp(t, `value="`+strconv.FormatInt(p.account.ID, 10)+`" checked`, acct.Body, "the matched account is chosen")
	p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	inv := p.c.Get("/payments/add/invoice")
	assert.Contains(t, inv.Body, `value="110000"`)
	assert.Contains(t, inv.Body, `value="`+due+`"`)
	assert.Contains(t, inv.Body, "請求書から読み取り（確度 高）。内容をご確認ください。", "each pre-filled field says where it came from and how sure")

	// The buyer types another amount: the confirm page asks to acknowledge the difference.
	form := invoiceForm("100000")
	form.Set("due_date", due)
	res = p.c.Post("/payments/add/invoice", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/add/confirm")
	assert.Contains(t, confirm.Body, "アップロードした請求書との違い")
	assert.Contains(t, confirm.Body, "入力した金額（¥100,000）が請求書の金額（¥110,000）と一致しません。")
	res = p.submit(t, confirm)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "acknowledge_amount", "請求書との違いを確認し、「確認しました」にチェックを入れてください")
	key := submitKeyRe.FindStringSubmatch(res.Body)[1]
	cards, err := webtest.Store().Cards(t.Context(), p.u.BuyerID)
	require.NoError(t, err)
	res = p.c.Post("/payments/add/confirm", url.Values{"submit_key": {key}, "card_id": {strconv.FormatInt(cards[0].ID, 10)},
		"acknowledge": {"amount"}, "action": {"submit"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	pid, _ := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/payments/complete?id="), 10, 64)
	pm, err := webtest.Store().Payment(t.Context(), p.u.BuyerID, pid)
	require.NoError(t, err)
	assert.Equal(t, []string{"amount"}, []string(pm.Acknowledged))
	require.NotNil(t, pm.FileID)
	f, err := webtest.Store().InvoiceFile(t.Context(), p.u.BuyerID, *pm.FileID)
	require.NoError(t, err)
	assert.NotNil(t, f.LockedAt, "the submitted invoice file is kept unchanged")
	// Another buyer cannot start a journey from the file.
	other := newPayer(t, "")
	assert.Equal(t, http.StatusNotFound, other.c.Get("/payments/add/invoiceinfo?file="+id).StatusCode)
}
