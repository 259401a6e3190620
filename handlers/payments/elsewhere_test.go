package payments_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// paymentIn makes a payment of p's buyer with status s (action required or not).
func paymentIn(t *testing.T, p payer, typ pay.InvoiceType, s pay.ExaminationStatus, actionRequired bool) string {
	t.Helper()
	id, err := webtest.Store().CreateInvoice(context.Background(), p.u.BuyerID, store.NewInvoice{SupplierID: p.supplier.ID,
		AccountID: &p.account.ID, InvoiceType: typ, ExaminationStatus: s, Amount: 50000, Fee: 1500})
	require.NoError(t, err)
	if actionRequired {
		_, err = webtest.Store().DB.Exec(`UPDATE invoices SET action_required = true, send_back_reason = '請求書が読めません' WHERE id = $1`, id)
		require.NoError(t, err)
	}
	return strconv.FormatInt(id, 10)
}

// A payment's page opened under another list's path (an old link, a bookmark, a list
// the payment has since left) is redirected with 303 to the same page under its own
// list, its cancel question too; under its own list it is shown; another buyer's is
// 404 under every path.
func TestAPaymentsPageUnderAnotherListGoesToItsOwn(t *testing.T) {
	p := newPayer(t, "")
	other := newPayer(t, "")
	lists := []string{"/payments/review", "/payments/reserved", "/payments/history", "/payments/waiting"}
	for _, tc := range []struct {
		name   string
		typ    pay.InvoiceType
		status pay.ExaminationStatus
		action bool
		own    string
	}{
		{"審査中", pay.InvoicePayment, pay.InProgress, false, "/payments/review"},
		{"要対応", pay.InvoicePayment, pay.InProgressExaminationChecked, true, "/payments/review"},
		{"振込予定", pay.InvoicePayment, pay.InProgressExaminationCompleted, false, "/payments/reserved"},
		{"支払履歴", pay.InvoicePayment, pay.TransferCompleted, false, "/payments/history"},
		{"キャンセル", pay.InvoicePayment, pay.Cancel, false, "/payments/history"},
		{"支払待ち", pay.InvoiceRequestBuyer, pay.WaitingForPayment, false, "/payments/waiting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := paymentIn(t, p, tc.typ, tc.status, tc.action)
			own := p.c.Get(tc.own + "/" + id)
			require.Equal(t, http.StatusOK, own.StatusCode, own.Body)
			assert.Contains(t, own.Body, pay.InvoiceNumber(mustID(t, id)))
			for _, l := range lists {
				if l == tc.own {
					continue
				}
				res := p.c.Get(l + "/" + id)
				require.Equal(t, http.StatusSeeOther, res.StatusCode, "%s/%s", l, id)
				assert.Equal(t, tc.own+"/"+id, res.Header.Get("Location"), l)
				if tc.typ == pay.InvoicePayment {
					res = p.c.Get(l + "/" + id + "/cancel")
					require.Equal(t, http.StatusSeeOther, res.StatusCode, "%s/%s/cancel", l, id)
					assert.Equal(t, tc.own+"/"+id+"/cancel", res.Header.Get("Location"), l)
				}
				assert.Equal(t, http.StatusNotFound, other.c.Get(l+"/"+id).StatusCode, "another buyer's, under %s", l)
			}
		})
	}
}

func mustID(t *testing.T, s string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return id
}

// /payments/complete opened again later (a reload, a bookmark, the history) leads to
// where the payment is now: the complete page while it is in review, as when it was
// submitted; its page in its list once it moved on; the landing list (SPEC.md §2) when
// the id names none of the buyer's payments, or is missing or malformed. Never a 404.
func TestTheCompletePageOpenedLater(t *testing.T) {
	p := newPayer(t, "")
	for _, q := range []string{"", "?id=", "?id=abc", "?id=-1", "?id=99999999"} {
		res := p.c.Get("/payments/complete" + q)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, q)
		assert.Equal(t, "/payments/create", res.Header.Get("Location"), "%s: nothing anywhere: the create page", q)
	}
	reserved := paymentIn(t, p, pay.InvoicePayment, pay.InProgressExaminationCompleted, false)
	res := p.c.Get("/payments/complete")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/reserved", res.Header.Get("Location"), "the landing rule")
	res = p.c.Get("/payments/complete?id=" + reserved)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/reserved/"+reserved, res.Header.Get("Location"))
	history := paymentIn(t, p, pay.InvoicePayment, pay.TransferCompleted, false)
	res = p.c.Get("/payments/complete?id=" + history)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/history/"+history, res.Header.Get("Location"))

	review := paymentIn(t, p, pay.InvoicePayment, pay.InProgress, false)
	page := p.c.Get("/payments/complete?id=" + review)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "支払申請を受け付けました")
	assert.Contains(t, page.Body, `href="/payments/review/`+review+`"`)
	// Sent back since: it is in 審査中 still (要対応), and so is its link.
	_, err := webtest.Store().DB.Exec(`UPDATE invoices SET action_required = true WHERE id = $1`, review)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, p.c.Get("/payments/complete?id="+review).StatusCode)

	// Another buyer's id is none of theirs: their own landing list, nothing of the payment.
	other := newPayer(t, "")
	res = other.c.Get("/payments/complete?id=" + review)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/payments/create", res.Header.Get("Location"))
}

// A sole proprietor may not use collections, but one with a request's key waiting (the
// mailed link opened signed out) has it linked on whatever signed-in page comes first,
// a collections page too: the key is linked before the collections guard answers.
func TestASoleProprietorsPendingKeyIsLinkedBeforeTheCollectionsGuard(t *testing.T) {
	m := &keyMailer{}
	_, link := sendRequest(t, m)
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	res := c.Get(link)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	c.SignIn(u.EmailAddress)
	res = c.Get("/collections/request")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	require.Regexp(t, regexp.MustCompile(`^/payments/waiting/\d+/creditcard$`), loc)
	assert.Equal(t, http.StatusOK, c.Get(loc).StatusCode)
	// The key is used: the guard answers as ever.
	assert.Equal(t, http.StatusForbidden, c.Get("/collections/request").StatusCode)
}
