package ops_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

type keyMailer struct {
	// Mailer answers the rest (NotificationMail): nil, since the store tells the app's
	// service of events, never this one.
	invoices.Mailer
	key string
}

func (m *keyMailer) RequestMailJob(_ string, f pay.RequestMailFacts) (store.NewJob, error) {
	m.key = f.Link[len("http://localhost"+invoices.RequestLinkPath):]
	return store.NewJob{Kind: "test_request_mail"}, nil
}

// A card-payment request is screened like any payment: the requester's invoice file is the
// evidence, the requester (approved at once: a registered corporation, its own account)
// needs no review, and the transfer goes to the requester's receiving account, less the
// fee when the requester bears it. The requester's status follows each step.
func TestACollectionPaymentIsScreenedAndTransferredToTheRequester(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	requester := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	acct, err := webtest.Store().CreateBuyerAccount(ctx, requester.BuyerID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: "1122334", HolderName: "ﾃｽﾄｼﾖｳｼﾞ(ｶ"})
	require.NoError(t, err)
	file, err := webtest.Store().CreateInvoiceFile(ctx, requester.BuyerID, store.NewInvoiceFile{StorageKey: "requests/" + strconv.FormatInt(requester.BuyerID, 10),
		OriginalName: "seikyusho.pdf", Size: 1234, MediaType: pay.FileTypePDF, SHA256: strings.Repeat("ab", 32), Pages: 1}, webtest.QueueOCR(ctx))
	require.NoError(t, err)
	m := &keyMailer{}
	s := invoices.New(invoices.Config{Store: webtest.Store(), BaseURL: "http://localhost", Mailer: m})
	r, err := s.Requests.SendRequest(ctx, requester.BuyerID, invoices.RequestSubmission{SubmitKey: "ops-request", UserID: requester.ID,
		AccountID: acct.ID, FileID: &file.ID, FeeBearer: pay.FeeByRequester, Request: pay.RequestInput{CustomerName: "株式会社お客さま",
			CustomerEmail: "keiri@customer.example", Amount: "100000", Deadline: pay.ISODate(time.Now().AddDate(0, 0, 30))}})
	require.NoError(t, err)

	// A customer with a card (and no supplier of their own: the console's supplier list
	// is shared by the package's tests).
	customer := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	cc := env.Client(t)
	cc.SignIn(customer.EmailAddress)
	res := env.PSP.AddCard(t, cc, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	p := paid{u: customer, c: cc}
	b, err := webtest.Store().Buyer(ctx, p.u.BuyerID)
	require.NoError(t, err)
	id, err := env.App.Requests.LinkRequestKey(ctx, b, m.key)
	require.NoError(t, err)
	// Not paid yet: nothing for screening.
	first, second := newOperator(t, env, pay.RoleScreening), newOperator(t, env, pay.RoleScreening)
	one, two := signIn(t, env, first), signIn(t, env, second)
	path := "/ops/screening/" + strconv.FormatInt(id, 10)
	assert.Equal(t, http.StatusNotFound, one.Get(path).StatusCode, "a request waiting for the card is not a payment yet")
	cards, err := webtest.Store().Cards(ctx, p.u.BuyerID)
	require.NoError(t, err)
	_, err = env.App.Requests.PayRequest(ctx, p.u.BuyerID, id, "ops-pay", cards[0].ID)
	require.NoError(t, err)

	queue := one.Get("/ops/screening?size=200").Body
	row := between(t, queue, `href="`+path+`"`, "</tr>")
	assert.Contains(t, row, "新しい口座", "the queue flags the new account in words")
	assert.Contains(t, row, "口座未承認")
	page := one.Get(path)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	for _, want := range []string{"テスト商事株式会社", "¥100,000", "1122334", "ﾃｽﾄｼﾖｳｼﾞ(ｶ", "承認済", "seikyusho.pdf"} {
		assert.Contains(t, page.Body, want)
	}
	require.Equal(t, http.StatusSeeOther, one.Post(path+"/check", nil).StatusCode)
	require.Equal(t, http.StatusSeeOther, two.Post(path+"/complete", nil).StatusCode, "the requester needs no supplier review")
	env.Settle(t)
	got, err := webtest.Store().Request(ctx, requester.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionReviewCompleted, got.Status())

	pm, err := webtest.Store().Payment(ctx, p.u.BuyerID, id)
	require.NoError(t, err)
	require.Equal(t, pay.CardCaptured, pm.CardStatus)
	tx, err := env.PSP.Client.Lookup(ctx, pm.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, int64(100000), tx.Captured, "the requester bears the fee: the customer's card is charged the amount")

	// The requester's receiving account came with the request: no one the customer
	// trusts vouched for it, so no transfer file takes it until an operator approves it.
	day := pay.ISODate(*pm.TransferDate)
	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	assert.Contains(t, mover.Get("/ops/transfers?date="+day).Body, "振込先口座の承認待ち")
	res = mover.Post("/ops/transfers/files", url.Values{"date": {day}})
	if res.StatusCode == http.StatusSeeOther {
		var n int
		require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM invoices WHERE id = $1 AND transfer_file_id IS NOT NULL`, id))
		require.Zero(t, n, "a payment to an unapproved account is in a transfer file")
	}
	page = one.Get(path)
	for _, want := range []string{"未承認", "新しい口座", "この口座を承認する"} {
		assert.Contains(t, page.Body, want)
	}
	require.Equal(t, http.StatusSeeOther, one.Post(path+"/approve-account", nil).StatusCode)
	var audits int
	require.NoError(t, webtest.Store().DB.Get(&audits, `SELECT count(*) FROM operator_audit WHERE object_type = 'supplier_account'
		AND object_id = $1 AND action = 'approve_account' AND operator_id = $2`, *pm.AccountID, first.ID))
	assert.Equal(t, 1, audits, "the approval and its audit row are one change")
	page = one.Get(path)
	assert.Contains(t, page.Body, "承認済み（担当者が承認）")
	assert.NotContains(t, page.Body, "この口座を承認する")
	res = one.Post(path+"/approve-account", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "a second approval is refused next to the action")
	assert.Contains(t, res.Body, invoices.MsgAccountApproved)
	res = mover.Post("/ops/transfers/files", url.Values{"date": {day}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	match := fileLink.FindStringSubmatch(mover.Get("/ops/transfers?date=" + day).Body)
	require.NotNil(t, match)
	raw := []byte(mover.Get(match[1]).Body)
	found := false
	for _, rec := range bytes.Split(bytes.TrimSuffix(raw, []byte("\r\n")), []byte("\r\n")) {
		if rec[0] != '2' || string(bytes.TrimSpace(rec[91:101])) != fmt.Sprintf("%010d", id) {
			continue
		}
		found = true
		holder, err := japanese.ShiftJIS.NewDecoder().Bytes(rec[50:80])
		require.NoError(t, err)
		assert.Equal(t, "ﾃｽﾄｼﾖｳｼﾞ(ｶ", string(bytes.TrimRight(holder, " ")))
		assert.Equal(t, "0005", string(rec[1:5]))
		assert.Equal(t, "1122334", string(rec[43:50]))
		assert.Equal(t, "0000097000", string(rec[80:90]), "the amount less the requester's fee")
	}
	require.True(t, found)
	fileID := match[2]
	require.Equal(t, http.StatusSeeOther, mover.Post("/ops/transfers/files/"+fileID+"/sent", nil).StatusCode)
	require.Equal(t, http.StatusSeeOther, mover.Post(fmt.Sprintf("/ops/transfers/%d/done", id), nil).StatusCode)
	got, err = webtest.Store().Request(ctx, requester.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionDepositCompleted, got.Status())
	var titles []string
	require.NoError(t, webtest.Store().DB.Select(&titles, `SELECT title FROM notifications WHERE buyer_id = $1 ORDER BY id`, requester.BuyerID))
	assert.Contains(t, titles, "ご入金が完了しました")
}
