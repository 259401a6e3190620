package invoices_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// mailer keeps the links the request mails would carry (the real one seals them into a
// mail job; these tests read the key back from here).
type mailer struct {
	mu    sync.Mutex
	facts []pay.RequestMailFacts
}

func (m *mailer) RequestMailJob(to string, f pay.RequestMailFacts) (store.NewJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.facts = append(m.facts, f)
	return store.NewJob{Kind: "test_request_mail", Payload: map[string]string{"to": to}}, nil
}

// notificationMailKind is the kind of the test mailer's notification mail jobs (the
// app's is account's, run by its tests).
const notificationMailKind = "test_notification_mail"

func (m *mailer) NotificationMail(buyerID int64) func(id int64) store.NewJob {
	return func(id int64) store.NewJob {
		return store.NewJob{Kind: notificationMailKind, Payload: map[string]int64{"buyer_id": buyerID, "notification_id": id}}
	}
}

func (m *mailer) lastKey(t *testing.T) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	require.NotEmpty(t, m.facts)
	link := m.facts[len(m.facts)-1].Link
	key := link[len("https://pay.example.jp"+invoices.RequestLinkPath):]
	require.True(t, pay.WellFormedRequestKey(key), link)
	return key
}

// corporateNumber makes a valid corporate number from a 12-digit base.
func corporateNumber(base string) string {
	d, _ := pay.CorporateCheckDigit(base)
	return fmt.Sprint(d) + base
}

// party is a buyer with a card (a customer) or a receiving account (a requester).
type party struct {
	buyer   store.Buyer
	user    int64
	card    int64
	account int64
}

func newParty(t *testing.T, name string) party {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	number := corporateNumber(fmt.Sprintf("%012d", 700000000000+n))
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: name, CorporateNumber: number,
		EmailAddress: fmt.Sprintf("collections-%d@test.example", n), PasswordHash: "hash", LastName: "山田", FirstName: "太郎"})
	require.NoError(t, err)
	b, err := db.Store.Buyer(ctx, u.BuyerID)
	require.NoError(t, err)
	c, err := db.Store.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "fake", Ref: fmt.Sprintf("card_c%d", n), Brand: pay.BrandVISA,
		Last4: "1111", ExpMonth: 12, ExpYear: 2030, Fingerprint: fmt.Sprintf("fp_c%d", n)}, now)
	require.NoError(t, err)
	a, err := db.Store.CreateBuyerAccount(ctx, u.BuyerID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: fmt.Sprintf("%07d", n), HolderName: "ｶ)ｲﾗｲ"})
	require.NoError(t, err)
	return party{buyer: b, user: u.ID, card: c.ID, account: a.ID}
}

func (p party) request(key string, edit ...func(*invoices.RequestSubmission)) invoices.RequestSubmission {
	sub := invoices.RequestSubmission{SubmitKey: key, UserID: p.user, AccountID: p.account, Request: pay.RequestInput{
		CustomerName: "株式会社お客さま", CustomerContactName: "経理ご担当", CustomerEmail: "keiri@customer.example",
		Amount: "200000", InvoiceNumber: "REQ-1", Deadline: "2026-12-10", Message: "よろしくお願いします"}}
	for _, e := range edit {
		e(&sub)
	}
	return sub
}

func newCollections(p *psp) (*invoices.Services, *mailer) {
	m := &mailer{}
	return newService(p, func(c *invoices.Config) { c.Mailer = m }), m
}

func TestARequestGoesFromSentToPaidAndTransferred(t *testing.T) {
	ctx := context.Background()
	p := newPSP()
	s, m := newCollections(p)
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")

	r, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("send-1"))
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionNotRegistered, r.Status())
	assert.Equal(t, int64(6000), r.Fee)
	assert.Equal(t, int64(206000), r.CustomerCharge(), "the customer bears the fee by default")
	assert.Equal(t, int64(200000), r.Transfer())
	facts := m.facts[0]
	assert.Equal(t, "株式会社依頼元", facts.RequesterName)
	assert.Equal(t, requester.buyer.CorporateNumber, facts.RequesterCorporateNumber)
	assert.Equal(t, int64(206000), facts.Amount)
	key := m.lastKey(t)

	// Sending the same page again sends nothing more.
	again, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("send-1"))
	require.NoError(t, err)
	assert.Equal(t, r.ID, again.ID)
	var mails int
	require.NoError(t, db.Store.DB.Get(&mails, `SELECT count(*) FROM jobs WHERE unique_key = $1`, fmt.Sprintf("request-mail-%d", r.ID)))
	assert.Equal(t, 1, mails, "one mail per request")
	var stored int
	require.NoError(t, db.Store.DB.Get(&stored, `SELECT count(*) FROM invoice_requests WHERE key_hash = $1`, []byte(key)))
	assert.Zero(t, stored, "the key itself is never stored")

	st, err := db.Store.Stats(ctx, requester.buyer.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionCounts{Request: 1}, st.Collections)

	info, err := s.Requests.RequestKey(ctx, customer.buyer.ID, key)
	require.NoError(t, err)
	assert.Equal(t, invoices.KeyInfo{Status: pay.KeyValid, RequesterName: "株式会社依頼元"}, info)

	paymentID, err := s.Requests.LinkRequestKey(ctx, customer.buyer, key)
	require.NoError(t, err)
	r, err = db.Store.Request(ctx, requester.buyer.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionWaitingPayment, r.Status())
	info, err = s.Requests.RequestKey(ctx, customer.buyer.ID, key)
	require.NoError(t, err)
	assert.Equal(t, invoices.KeyInfo{Status: pay.KeyValid, Used: true, InvoiceID: paymentID, DocNumber: pay.InvoiceNumber(paymentID), RequesterName: "株式会社依頼元"}, info)
	// Opening the link again (the same customer) answers the same payment.
	again2, err := s.Requests.LinkRequestKey(ctx, customer.buyer, key)
	require.NoError(t, err)
	assert.Equal(t, paymentID, again2)

	// The customer sees it waiting, and the requester among their suppliers, approved.
	cst, err := db.Store.Stats(ctx, customer.buyer.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, cst.Payments.Waiting)
	pm, err := db.Store.Payment(ctx, customer.buyer.ID, paymentID)
	require.NoError(t, err)
	assert.Equal(t, pay.InvoiceRequestBuyer, pm.InvoiceType)
	assert.Equal(t, pay.WaitingForPayment, pm.ExaminationStatus)
	assert.Equal(t, "株式会社依頼元", pm.SupplierName)
	sup, err := db.Store.Supplier(ctx, customer.buyer.ID, pm.SupplierID)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierApproved, sup.Status)
	assert.Equal(t, requester.buyer.CorporateNumber, sup.CorporateNumber)

	// The customer pays: amount + fee authorised once.
	res, err := s.Requests.PayRequest(ctx, customer.buyer.ID, paymentID, "pay-1", customer.card)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, res.Payment.ExaminationStatus)
	assert.Equal(t, int64(206000), p.txs[res.Payment.PaymentRef].Amount)
	r, err = db.Store.Request(ctx, requester.buyer.ID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionInProgress, r.Status())
	assert.NotNil(t, r.PaidAt)
	assert.NotNil(t, r.TransferDate)

	// Screening and the transfer move the requester's side with it.
	for _, step := range []struct {
		a    pay.PaymentAction
		want pay.CollectionStatus
	}{
		{pay.ActCheck, pay.CollectionInProgress},
		{pay.ActComplete, pay.CollectionReviewCompleted},
		{pay.ActFile, pay.CollectionReviewCompleted},
		{pay.ActSend, pay.CollectionReviewCompleted},
		{pay.ActTransfer, pay.CollectionDepositCompleted},
	} {
		if step.a == pay.ActFile {
			require.NoError(t, db.Store.SetPaymentCard(ctx, nil, customer.buyer.ID, paymentID, res.Payment.PaymentRef, pay.CardCaptured, "A001", now))
		}
		_, err := db.Store.Transition(ctx, customer.buyer.ID, paymentID, step.a, "operator:1", "", now, nil)
		require.NoError(t, err)
		r, err = db.Store.Request(ctx, requester.buyer.ID, r.ID)
		require.NoError(t, err)
		assert.Equal(t, step.want, r.Status(), "after %s", step.a)
	}
	st, err = db.Store.Stats(ctx, requester.buyer.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionCounts{History: 1}, st.Collections)
	ev, err := db.Store.PaymentEvents(ctx, requester.buyer.ID, r.ID)
	require.NoError(t, err)
	var actions []pay.PaymentAction
	for _, e := range ev {
		actions = append(actions, e.Action)
	}
	assert.Equal(t, []pay.PaymentAction{pay.ActRequest, pay.ActLink, pay.ActSubmit, pay.ActComplete, pay.ActTransfer}, actions,
		"the requester's timeline: the check is screening's own step, not a change of theirs")
	var notes []string
	require.NoError(t, db.Store.DB.Select(&notes, `SELECT title FROM notifications WHERE buyer_id = $1 ORDER BY id`, requester.buyer.ID))
	assert.Equal(t, []string{"カード払い依頼を送信しました", "お客さまが依頼を受け取りました", "お客さまがカードで支払いました",
		"カード払い依頼の審査が完了しました", "ご入金が完了しました"}, notes)
	require.NoError(t, db.Store.DB.Select(&notes, `SELECT title FROM notifications WHERE buyer_id = $1 ORDER BY id`, customer.buyer.ID))
	assert.Equal(t, "カード払いの依頼が届きました", notes[0])
	assert.Len(t, notes, 5)
}

func TestTheRequesterMayBearTheFee(t *testing.T) {
	ctx := context.Background()
	p := newPSP()
	s, m := newCollections(p)
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")
	r, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("send-fee", func(sub *invoices.RequestSubmission) {
		sub.FeeBearer = pay.FeeByRequester
	}))
	require.NoError(t, err)
	assert.Equal(t, int64(200000), r.CustomerCharge())
	assert.Equal(t, int64(194000), r.Transfer())
	assert.Equal(t, int64(200000), m.facts[0].Amount)
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	res, err := s.Requests.PayRequest(ctx, customer.buyer.ID, id, "pay-fee", customer.card)
	require.NoError(t, err)
	assert.Equal(t, int64(200000), p.txs[res.Payment.PaymentRef].Amount, "the customer's card: the amount only")
	for _, a := range []pay.PaymentAction{pay.ActCheck, pay.ActComplete} {
		_, err := db.Store.Transition(ctx, customer.buyer.ID, id, a, "operator:1", "", now, nil)
		require.NoError(t, err)
	}
	tr, err := db.Store.Transfer(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, int64(194000), tr.Amount, "the requester receives the amount less the fee")
	assert.Equal(t, "ｶ)ｲﾗｲ", tr.HolderName, "paid to the requester's own receiving account")
}

func TestKeyStatesAndRefusals(t *testing.T) {
	ctx := context.Background()
	p := newPSP()
	s, m := newCollections(p)
	requester, customer, third := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま"), newParty(t, "株式会社第三者")
	refusal := func(err error) *invoices.KeyRefusal {
		t.Helper()
		var kr *invoices.KeyRefusal
		require.True(t, errors.As(err, &kr), "%v", err)
		return kr
	}

	// Invalid: a key that is not ours, or matches nothing.
	for _, bad := range []string{"nonsense", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		info, err := s.Requests.RequestKey(ctx, third.buyer.ID, bad)
		require.NoError(t, err)
		assert.Equal(t, pay.KeyInvalid, info.Status)
		_, err = s.Requests.LinkRequestKey(ctx, third.buyer, bad)
		assert.Equal(t, "3", refusal(err).Status)
		assert.Equal(t, invoices.MsgKeyFailed, refusal(err).Message)
	}

	_, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("keys-1"))
	require.NoError(t, err)
	key := m.lastKey(t)
	// The requester's own key.
	_, err = s.Requests.LinkRequestKey(ctx, requester.buyer, key)
	assert.Equal(t, "2", refusal(err).Status)
	// Used: by the customer, then refused to a third buyer with the server's message.
	_, err = s.Requests.LinkRequestKey(ctx, customer.buyer, key)
	require.NoError(t, err)
	_, err = s.Requests.LinkRequestKey(ctx, third.buyer, key)
	assert.Equal(t, "2", refusal(err).Status)
	assert.Contains(t, refusal(err).Message, "既に別のアカウントで受け取られています")
	info, err := s.Requests.RequestKey(ctx, third.buyer.ID, key)
	require.NoError(t, err)
	assert.Equal(t, invoices.KeyInfo{Status: pay.KeyValid, Used: true, RequesterName: "株式会社依頼元"}, info, "a third buyer learns no invoice id")

	// Addressed to another corporation.
	_, err = s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("keys-2", func(sub *invoices.RequestSubmission) {
		sub.Request.CustomerCorporateNumber = corporateNumber("999999999999")
	}))
	require.NoError(t, err)
	_, err = s.Requests.LinkRequestKey(ctx, third.buyer, m.lastKey(t))
	assert.Equal(t, "2", refusal(err).Status)
	assert.Contains(t, refusal(err).Message, "別の法人宛て")

	// Cancelled: expired at once, and it cannot be paid.
	r3, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("keys-3"))
	require.NoError(t, err)
	key3 := m.lastKey(t)
	_, err = s.Requests.CancelRequest(ctx, requester.buyer.ID, r3.ID, requester.user)
	require.NoError(t, err)
	info, err = s.Requests.RequestKey(ctx, customer.buyer.ID, key3)
	require.NoError(t, err)
	assert.Equal(t, pay.KeyExpired, info.Status)
	_, err = s.Requests.LinkRequestKey(ctx, customer.buyer, key3)
	assert.NotEqual(t, "2", refusal(err).Status, "an expired key shows the default dialog")

	// Expired: past the deadline day.
	_, err = s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("keys-4"))
	require.NoError(t, err)
	key4 := m.lastKey(t)
	late := newService(p, func(c *invoices.Config) {
		c.Mailer, c.Now = m, func() time.Time { return time.Date(2026, 12, 11, 0, 0, 1, 0, pay.Tokyo()) }
	})
	info, err = late.Requests.RequestKey(ctx, customer.buyer.ID, key4)
	require.NoError(t, err)
	assert.Equal(t, pay.KeyExpired, info.Status)
	_, err = late.Requests.LinkRequestKey(ctx, customer.buyer, key4)
	assert.Equal(t, invoices.MsgKeyFailed, refusal(err).Message)
}

func TestGuessingKeysIsLimited(t *testing.T) {
	ctx := context.Background()
	s, m := newCollections(newPSP())
	requester, guesser := newParty(t, "株式会社依頼元"), newParty(t, "株式会社推測")
	_, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("guess"))
	require.NoError(t, err)
	key := m.lastKey(t)
	for i := range invoices.MaxKeyMisses {
		info, err := s.Requests.RequestKey(ctx, guesser.buyer.ID, fmt.Sprintf("guess-%d", i))
		require.NoError(t, err)
		assert.Equal(t, pay.KeyInvalid, info.Status)
	}
	// Even the right key is refused now, without being looked at.
	_, err = s.Requests.RequestKey(ctx, guesser.buyer.ID, key)
	var kr *invoices.KeyRefusal
	require.True(t, errors.As(err, &kr))
	assert.Equal(t, invoices.MsgKeyTries, kr.Message)
	// An hour later it works again.
	later := newService(newPSP(), func(c *invoices.Config) {
		c.Now = func() time.Time { return now.Add(invoices.KeyMissWindow + time.Minute) }
	})
	info, err := later.Requests.RequestKey(ctx, guesser.buyer.ID, key)
	require.NoError(t, err)
	assert.Equal(t, pay.KeyValid, info.Status)
}

func TestACustomerFoundByCorporateNumberHasTheRequestAtOnce(t *testing.T) {
	ctx := context.Background()
	s, m := newCollections(newPSP())
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")
	r, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("found", func(sub *invoices.RequestSubmission) {
		sub.Request.CustomerCorporateNumber = customer.buyer.CorporateNumber
	}))
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionWaitingPayment, r.Status())
	require.NotNil(t, r.PaymentInvoiceID)
	st, err := db.Store.Stats(ctx, customer.buyer.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Payments.Waiting)
	// The mailed link still works for them, and answers the same invoice.
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	assert.Equal(t, *r.PaymentInvoiceID, id)
}

func TestFiftyConcurrentPaymentsOfOneRequestChargeOnce(t *testing.T) {
	ctx := context.Background()
	p := newPSP()
	s, m := newCollections(p)
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")
	_, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("fifty"))
	require.NoError(t, err)
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Half send the same page twice over, half come from other tabs (other keys).
			key := "tab-a"
			if i%2 == 1 {
				key = fmt.Sprintf("tab-%d", i)
			}
			_, errs[i] = s.Requests.PayRequest(ctx, customer.buyer.ID, id, key, customer.card)
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		var fe pay.FieldErrors
		if err == nil {
			ok++
			continue
		}
		require.True(t, errors.As(err, &fe), "%v", err)
	}
	assert.Positive(t, ok)
	assert.Equal(t, 1, p.count(), "one authorisation at the PSP")
	pm, err := db.Store.Payment(ctx, customer.buyer.ID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, pm.ExaminationStatus)
	assert.Equal(t, int64(206000), pm.AuthorizedAmount)
	t.Logf("50 concurrent payments of one request: %d answered paid, %d authorisation, %d PSP calls", ok, p.count(), p.calls.Load())
}

func TestRequestsAreTheirOwnersOnly(t *testing.T) {
	ctx := context.Background()
	s, m := newCollections(newPSP())
	requester, customer, third := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま"), newParty(t, "株式会社第三者")
	r, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("own"))
	require.NoError(t, err)
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)

	for _, who := range []int64{customer.buyer.ID, third.buyer.ID} {
		_, err := db.Store.Request(ctx, who, r.ID)
		assert.ErrorIs(t, err, store.ErrNotFound)
		_, err = s.Requests.CancelRequest(ctx, who, r.ID, 1)
		assert.ErrorIs(t, err, store.ErrNotFound)
	}
	for _, who := range []int64{requester.buyer.ID, third.buyer.ID} {
		_, err := db.Store.RequestOfPayment(ctx, who, id)
		assert.ErrorIs(t, err, store.ErrNotFound)
		_, err = s.Requests.PayRequest(ctx, who, id, "steal", third.card)
		assert.ErrorIs(t, err, store.ErrNotFound)
	}
	// The requester's account and file must be their own.
	_, err = s.Requests.SendRequest(ctx, third.buyer.ID, requester.request("not-mine", func(sub *invoices.RequestSubmission) { sub.UserID = third.user }))
	assert.ErrorIs(t, err, store.ErrNotFound)
	list, total, err := db.Store.Requests(ctx, store.RequestFilter{RequesterID: third.buyer.ID, Size: 20})
	require.NoError(t, err)
	assert.Zero(t, total)
	assert.Empty(t, list)
}

func TestCancellingAndExpiringRequests(t *testing.T) {
	ctx := context.Background()
	p := newPSP()
	s, m := newCollections(p)
	requester, customer := newParty(t, "株式会社依頼元"), newParty(t, "株式会社お客さま")

	// Cancelled after the customer took it: both sides end.
	r, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("cancel-1"))
	require.NoError(t, err)
	id, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	r, err = s.Requests.CancelRequest(ctx, requester.buyer.ID, r.ID, requester.user)
	require.NoError(t, err)
	assert.Equal(t, pay.CollectionCancel, r.Status())
	pm, err := db.Store.Payment(ctx, customer.buyer.ID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	_, err = s.Requests.PayRequest(ctx, customer.buyer.ID, id, "late", customer.card)
	var fe pay.FieldErrors
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, fe.For("status"), "お支払いいただけません")
	// Twice: refused, nothing changes.
	_, err = s.Requests.CancelRequest(ctx, requester.buyer.ID, r.ID, requester.user)
	require.True(t, errors.As(err, &fe))

	// Paid: too late to cancel.
	r2, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("cancel-2"))
	require.NoError(t, err)
	id2, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	_, err = s.Requests.PayRequest(ctx, customer.buyer.ID, id2, "pay-2", customer.card)
	require.NoError(t, err)
	_, err = s.Requests.CancelRequest(ctx, requester.buyer.ID, r2.ID, requester.user)
	require.True(t, errors.As(err, &fe))
	assert.Contains(t, fe.For("status"), "キャンセルできません")

	// Expired by the daily job: one not taken, one taken and not paid.
	deadline := func(sub *invoices.RequestSubmission) { sub.Request.Deadline = "2026-12-20" }
	r3, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("expire-1", deadline))
	require.NoError(t, err)
	r4, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("expire-2", deadline))
	require.NoError(t, err)
	id4, err := s.Requests.LinkRequestKey(ctx, customer.buyer, m.lastKey(t))
	require.NoError(t, err)
	onDeadline := time.Date(2026, 12, 20, 0, 0, 0, 0, pay.Tokyo())
	_, err = s.Payments.ExpireDue(ctx, onDeadline)
	require.NoError(t, err)
	for _, id := range []int64{r3.ID, r4.ID} {
		got, err := db.Store.Request(ctx, requester.buyer.ID, id)
		require.NoError(t, err)
		assert.True(t, pay.RequestOpen(got.ExaminationStatus), "the deadline day itself is still open")
	}
	dayAfter := time.Date(2026, 12, 21, 0, 0, 0, 0, pay.Tokyo())
	_, err = s.Payments.ExpireDue(ctx, dayAfter)
	require.NoError(t, err)
	for _, id := range []int64{r3.ID, r4.ID} {
		got, err := db.Store.Request(ctx, requester.buyer.ID, id)
		require.NoError(t, err)
		assert.Equal(t, pay.CollectionExpired, got.Status())
	}
	pm4, err := db.Store.Payment(ctx, customer.buyer.ID, id4)
	require.NoError(t, err)
	assert.Equal(t, pay.Expired, pm4.ExaminationStatus)
	// Once a day only.
	n, err := s.Payments.ExpireDue(ctx, dayAfter)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestRequestChecks(t *testing.T) {
	ctx := context.Background()
	s, _ := newCollections(newPSP())
	requester := newParty(t, "株式会社依頼元")
	_, err := s.Requests.SendRequest(ctx, requester.buyer.ID, requester.request("bad", func(sub *invoices.RequestSubmission) {
		sub.Request.Amount = "abc"
		sub.Request.CustomerCorporateNumber = requester.buyer.CorporateNumber
		sub.FeeBearer = "nobody"
		sub.AccountID = 0
	}))
	var fe pay.FieldErrors
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.NotEmpty(t, fe.For("amount"))
	assert.Contains(t, fe.For("customer_corporate_number"), "ご自身の会社")
	assert.NotEmpty(t, fe.For("fee_bearer"))
	assert.NotEmpty(t, fe.For("account_id"))
	_, total, err := db.Store.Requests(ctx, store.RequestFilter{RequesterID: requester.buyer.ID})
	require.NoError(t, err)
	assert.Zero(t, total, "nothing written")
	b, _ := json.Marshal(fe)
	t.Logf("refusal: %s", b)
}
