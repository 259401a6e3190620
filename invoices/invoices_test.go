package invoices_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// now is the tests' clock: Tuesday 24 November 2026, 10:00 in Tokyo.
var now = time.Date(2026, 11, 24, 10, 0, 0, 0, pay.Tokyo())

// psp is an idempotent PSP: one authorisation per payment id, whatever the number of
// calls, as the real ones (and the sandbox) behave. decide chooses the outcome of a new id;
// looked runs after a lookup has answered and captures before a capture is applied (what
// happens elsewhere while the PSP is being asked).
type psp struct {
	mu       sync.Mutex
	txs      map[string]gateway.Transaction
	calls    atomic.Int64
	decide   func(gateway.AuthorizeRequest) (gateway.Transaction, error)
	lookErr  error
	looked   func(id string)
	captures func(id string)
}

func newPSP() *psp { return &psp{txs: map[string]gateway.Transaction{}} }

func (p *psp) Name() string { return "fake" }
func (p *psp) SaveCard(context.Context, string) (gateway.Card, error) {
	return gateway.Card{}, errors.New("not used")
}
func (p *psp) Authorize(_ context.Context, r gateway.AuthorizeRequest) (gateway.Transaction, error) {
	p.calls.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if tx, ok := p.txs[r.PaymentID]; ok {
		return tx, nil
	}
	tx := gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved, Amount: r.Amount}
	if p.decide != nil {
		var err error
		if tx, err = p.decide(r); err != nil {
			return tx, err
		}
	}
	p.txs[r.PaymentID] = tx
	return tx, nil
}
func (p *psp) set(id string, f func(*gateway.Transaction)) (gateway.Transaction, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tx, ok := p.txs[id]
	if !ok {
		return tx, gateway.ErrNotFound
	}
	f(&tx)
	p.txs[id] = tx
	return tx, nil
}
func (p *psp) Capture(_ context.Context, id string, amount int64) (gateway.Transaction, error) {
	if f := p.captures; f != nil {
		p.captures = nil
		f(id)
	}
	return p.set(id, func(tx *gateway.Transaction) { tx.Status, tx.Captured = gateway.StatusCaptured, amount })
}
func (p *psp) Void(_ context.Context, id string) (gateway.Transaction, error) {
	return p.set(id, func(tx *gateway.Transaction) { tx.Status = gateway.StatusVoided })
}
func (p *psp) Refund(_ context.Context, id string, amount int64) (gateway.Transaction, error) {
	return p.set(id, func(tx *gateway.Transaction) { tx.Status, tx.Refunded = gateway.StatusRefunded, amount })
}
func (p *psp) Lookup(_ context.Context, id string) (gateway.Transaction, error) {
	if p.lookErr != nil {
		return gateway.Transaction{}, p.lookErr
	}
	p.mu.Lock()
	tx, ok := p.txs[id]
	p.mu.Unlock()
	if f := p.looked; f != nil {
		p.looked = nil
		f(id)
	}
	if !ok {
		return tx, gateway.ErrNotFound
	}
	return tx, nil
}
func (p *psp) VerifyWebhook(http.Header, []byte, time.Time) (gateway.Event, error) {
	return gateway.Event{}, errors.New("not used")
}
func (p *psp) StartCardSetup(context.Context, gateway.CardSetupRequest) (gateway.CardSetup, error) {
	return gateway.CardSetup{}, errors.New("not used")
}
func (p *psp) FinishCardSetup(context.Context, string) (gateway.CardSetupResult, error) {
	return gateway.CardSetupResult{}, errors.New("not used")
}
func (p *psp) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.txs)
}

var seq atomic.Int64

// fixture is a buyer with a supplier, its account and a card.
type fixture struct {
	buyer, supplier, account, card int64
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := context.Background()
	n := seq.Add(1)
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "テスト株式会社",
		EmailAddress: fmt.Sprintf("invoices-%d@test.example", n), PasswordHash: "hash", LastName: "山田", FirstName: "太郎"})
	require.NoError(t, err)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社取引先",
		NameKana: "カブシキガイシャトリヒキサキ", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾄﾘﾋｷｻｷ"})
	require.NoError(t, err)
	accts, err := db.Store.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	c, err := db.Store.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "fake", Ref: fmt.Sprintf("card_%d", n), Brand: pay.BrandVISA,
		Last4: "1111", ExpMonth: 12, ExpYear: 2030, Fingerprint: fmt.Sprintf("fp_%d", n)}, now)
	require.NoError(t, err)
	return fixture{buyer: u.BuyerID, supplier: sup.ID, account: accts[0].ID, card: c.ID}
}

func (f fixture) submission(key string) invoices.Submission {
	return invoices.Submission{SubmitKey: key, SupplierID: f.supplier, AccountID: f.account, CardID: f.card,
		Invoice: pay.InvoiceInput{Amount: "100000", DueDate: "2026-12-25", TransferDate: "2026-12-25", InvoiceNumber: "INV-1"}}
}

// newService is the payment rules on the test database, told of its events as the app's
// service is (notices and a request following its payment), with a mailer that records.
// edits change the configuration first (a crash point, a clock, a mailer of the test's).
func newService(p *psp, edits ...func(*invoices.Config)) *invoices.Services {
	c := invoices.Config{Store: db.Store, Gateway: p, BaseURL: "https://pay.example.jp", Now: func() time.Time { return now },
		Mailer: &mailer{}}
	for _, e := range edits {
		e(&c)
	}
	s := invoices.New(c)
	db.Store.SetEvents(s.Notices)
	return s
}

// knobs are what a test turns on its services as it goes: the clock and a crash point.
type knobs struct {
	now   time.Time
	crash func(point string)
}

// edit makes the services read the knobs.
func (k *knobs) edit(c *invoices.Config) {
	c.Now = func() time.Time { return k.now }
	c.Crash = func(point string) {
		if k.crash != nil {
			k.crash(point)
		}
	}
}

func TestSubmitAuthorisesAmountAndFee(t *testing.T) {
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("k1"))
	require.NoError(t, err)
	assert.Empty(t, res.ActionURL)
	pm := res.Payment
	assert.Equal(t, pay.InProgress, pm.ExaminationStatus)
	assert.Equal(t, pay.CardAuthorized, pm.CardStatus)
	assert.Equal(t, int64(100000), pm.Amount)
	assert.Equal(t, int64(3000), pm.Fee)
	assert.Equal(t, int64(103000), pm.AuthorizedAmount)
	assert.NotNil(t, pm.SubmittedAt)
	assert.Equal(t, int64(103000), p.txs[pm.PaymentRef].Amount)
	ev, err := db.Store.PaymentEvents(context.Background(), f.buyer, pm.ID)
	require.NoError(t, err)
	require.Len(t, ev, 1)
	assert.Equal(t, pay.ActSubmit, ev[0].Action)

	// The same key again answers the same payment, with no second authorisation.
	again, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("k1"))
	require.NoError(t, err)
	assert.Equal(t, pm.ID, again.Payment.ID)
	assert.Equal(t, 1, p.count())
}

func TestFiftyConcurrentSubmitsMakeOnePayment(t *testing.T) {
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	var wg sync.WaitGroup
	ids := make([]int64, 50)
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("same-page"))
			ids[i], errs[i] = r.Payment.ID, err
		}()
	}
	wg.Wait()
	for i := range 50 {
		require.NoError(t, errs[i], "submit %d", i)
		assert.Equal(t, ids[0], ids[i])
	}
	list, total, err := db.Store.Payments(context.Background(), store.PaymentFilter{BuyerID: f.buyer, Bucket: pay.BucketReview, Size: 20})
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	assert.Len(t, list, 1)
	assert.Equal(t, 1, p.count(), "one authorisation at the PSP")
	t.Logf("50 concurrent submits: %d payment, %d authorisation, %d PSP calls", total, p.count(), p.calls.Load())
}

func TestDeclineKeepsNothingAndANewKeyTriesAgain(t *testing.T) {
	f := newFixture(t)
	p := newPSP()
	declineNext := true
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		if declineNext {
			declineNext = false
			return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusDeclined, ResultCode: gateway.ResultInsufficientFunds}, nil
		}
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusAuthorized, Amount: r.Amount}, nil
	}
	s := newService(p)
	_, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("try-1"))
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, gateway.ResultMessage(gateway.ResultInsufficientFunds), fe.For("card_id"))
	_, total, err := db.Store.Payments(context.Background(), store.PaymentFilter{BuyerID: f.buyer, Bucket: pay.BucketReview, Size: 20})
	require.NoError(t, err)
	assert.Equal(t, 0, total, "a declined submission is nobody's payment")
	// The same key is still declined (the page must issue a new one).
	_, err = s.Payments.Submit(context.Background(), f.buyer, f.submission("try-1"))
	require.ErrorAs(t, err, &fe)
	res, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("try-2"))
	require.NoError(t, err)
	assert.Equal(t, pay.CardAuthorized, res.Payment.CardStatus)
}

func TestChallengeThenReturn(t *testing.T) {
	f := newFixture(t)
	p := newPSP()
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/challenge/1", Amount: r.Amount}, nil
	}
	s := newService(p)
	res, err := s.Payments.Submit(context.Background(), f.buyer, f.submission("3ds"))
	require.NoError(t, err)
	assert.Equal(t, "https://psp.example/challenge/1", res.ActionURL)
	_, err = db.Store.Payment(context.Background(), f.buyer, res.Payment.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "not a payment before the challenge")

	// Back without finishing: still waiting.
	_, err = s.Payments.Returned(context.Background(), f.buyer, res.Payment.PaymentRef)
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	// The buyer passes the challenge.
	_, _ = p.set(res.Payment.PaymentRef, func(tx *gateway.Transaction) { tx.Status = gateway.StatusAuthorized })
	done, err := s.Payments.Returned(context.Background(), f.buyer, res.Payment.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, done.Payment.ExaminationStatus)
	// Another buyer cannot name it.
	other := newFixture(t)
	_, err = s.Payments.Returned(context.Background(), other.buyer, res.Payment.PaymentRef)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestSettleJobReconciles(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	k := &knobs{now: now}
	s := newService(p, k.edit)
	// A submission whose request died after the PSP authorised it.
	var dead store.Payment
	k.crash = func(point string) {
		if point == invoices.CrashAfterAuthorize {
			panic("killed")
		}
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = s.Payments.Submit(ctx, f.buyer, f.submission("dies"))
	}()
	k.crash = nil
	list, err := db.Store.Unsettled(ctx, time.Now().Add(time.Hour), 1000)
	require.NoError(t, err)
	for _, u := range list {
		if u.BuyerID == f.buyer {
			dead = u
		}
	}
	require.NotZero(t, dead.ID)
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: dead.ID})
	require.NoError(t, s.Payments.RunSettleJob(ctx, payload))
	pm, err := db.Store.Payment(ctx, f.buyer, dead.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardAuthorized, pm.CardStatus)

	// A submission the PSP never saw is declined.
	func() {
		defer func() { _ = recover() }()
		k.crash = func(point string) {
			if point == invoices.CrashAfterStart {
				panic("killed")
			}
		}
		_, _ = s.Payments.Submit(ctx, f.buyer, f.submission("dies-early"))
	}()
	k.crash = nil
	list, err = db.Store.Unsettled(ctx, time.Now().Add(time.Hour), 1000)
	require.NoError(t, err)
	var early store.Payment
	for _, u := range list {
		if u.BuyerID == f.buyer {
			early = u
		}
	}
	require.NotZero(t, early.ID)
	payload, _ = json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: early.ID})
	require.NoError(t, s.Payments.RunSettleJob(ctx, payload))
	sub, err := db.Store.Submission(ctx, f.buyer, early.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardDeclined, sub.CardStatus)
	// Not seen is not never seen: the request may still be on its way to the PSP. When its
	// authorisation arrives after all, the recheck releases it; the submission stays declined.
	_, err = p.Authorize(ctx, gateway.AuthorizeRequest{PaymentID: sub.PaymentRef, Amount: sub.AuthorizedAmount})
	require.NoError(t, err)
	var recheck []byte
	require.NoError(t, db.Store.DB.Get(&recheck, `SELECT payload FROM jobs WHERE unique_key = $1`, "recheck-"+sub.PaymentRef))
	require.NoError(t, s.Payments.RunCardJob(ctx, recheck))
	assert.Equal(t, gateway.StatusVoided, p.txs[sub.PaymentRef].Status, "the late authorisation is released")
	sub, err = db.Store.Submission(ctx, f.buyer, early.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardDeclined, sub.CardStatus)

	// While the PSP does not answer, the job fails (and is retried).
	p.lookErr = gateway.ErrUnavailable
	func() {
		defer func() { _ = recover() }()
		k.crash = func(point string) {
			if point == invoices.CrashAfterStart {
				panic("killed")
			}
		}
		_, _ = s.Payments.Submit(ctx, f.buyer, f.submission("dies-again"))
	}()
	k.crash = nil
	list, _ = db.Store.Unsettled(ctx, time.Now().Add(time.Hour), 1000)
	for _, u := range list {
		if u.BuyerID == f.buyer {
			payload, _ = json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: u.ID})
			assert.Error(t, s.Payments.RunSettleJob(ctx, payload))
		}
	}
}

func TestCancelVoidsOrRefunds(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("c1"))
	require.NoError(t, err)
	pm, err := s.Payments.Cancel(ctx, f.buyer, "buyer:1", res.Payment.ID, "")
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	require.NoError(t, s.Payments.RunCardJob(ctx, payload), "running it again changes nothing")
	pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.CardVoided, pm.CardStatus)
	assert.Equal(t, gateway.StatusVoided, p.txs[pm.PaymentRef].Status)
	// Cancelling again is refused with a message.
	_, err = s.Payments.Cancel(ctx, f.buyer, "buyer:1", pm.ID, "")
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, invoices.MsgCannotCancel, fe.For("cancel"))

	// A captured payment is refunded.
	res, err = s.Payments.Submit(ctx, f.buyer, f.submission("c2"))
	require.NoError(t, err)
	_, _ = p.Capture(ctx, res.Payment.PaymentRef, res.Payment.AuthorizedAmount)
	pm, err = s.Payments.Cancel(ctx, f.buyer, "buyer:1", res.Payment.ID, "")
	require.NoError(t, err)
	payload, _ = json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusRefunded, p.txs[pm.PaymentRef].Status)
	assert.Equal(t, int64(103000), p.txs[pm.PaymentRef].Refunded)

	// Another buyer's payment is not found.
	other := newFixture(t)
	_, err = s.Payments.Cancel(ctx, other.buyer, "buyer:2", res.Payment.ID, "")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestCheckRefusesWithMessages(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	s := newService(newPSP())
	sub := f.submission("x")
	sub.Invoice.Amount = "999"
	sub.CardID = 0
	_, err := s.Payments.Check(ctx, f.buyer, sub)
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	assert.NotEmpty(t, fe.For("amount"))
	assert.Equal(t, "お支払いに使うカードを選んでください", fe.For("card_id"))
	// Another buyer's supplier is not found, never listed as an error.
	other := newFixture(t)
	sub = other.submission("y")
	sub.SupplierID = f.supplier
	_, err = s.Payments.Check(ctx, other.buyer, sub)
	require.ErrorIs(t, err, store.ErrNotFound)
	sub = other.submission("y")
	sub.CardID = f.card
	_, err = s.Payments.Check(ctx, other.buyer, sub)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestPromotion(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	require.NoError(t, db.Store.CreatePromotion(ctx, pay.Promotion{Code: "HALF", DiscountBasisPoints: 150,
		ValidFrom: now.Add(-time.Hour), ValidTo: now.Add(24 * time.Hour)}))
	require.NoError(t, db.Store.CreatePromotion(ctx, pay.Promotion{Code: "OLD", DiscountBasisPoints: 150,
		ValidFrom: now.Add(-48 * time.Hour), ValidTo: now.Add(-24 * time.Hour)}))
	promo, err := s.Payments.Promotion(ctx, f.buyer, " half ")
	require.NoError(t, err)
	assert.Equal(t, invoices.Commission{Amount: 100000, FeeBasisPoints: 150, Fee: 1500, Total: 101500, Discount: 1500}, s.Payments.CommissionFor(100000, &promo))
	_, err = s.Payments.Promotion(ctx, f.buyer, "OLD")
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, pay.MsgPromotionPeriod, fe.For("promotion_code"))
	_, err = s.Payments.Promotion(ctx, f.buyer, "NOPE")
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, pay.MsgPromotionUnknown, fe.For("promotion_code"))

	sub := f.submission("promo-1")
	sub.PromotionCode = "half"
	res, err := s.Payments.Submit(ctx, f.buyer, sub)
	require.NoError(t, err)
	assert.Equal(t, int64(1500), res.Payment.Fee)
	assert.Equal(t, "HALF", res.Payment.PromotionCode)
	// Once per buyer.
	sub = f.submission("promo-2")
	sub.PromotionCode = "HALF"
	_, err = s.Payments.Submit(ctx, f.buyer, sub)
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, pay.MsgPromotionUsed, fe.For("promotion_code"))
}

func TestWebhooksSettleAndExpire(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/c", Amount: r.Amount}, nil
	}
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("hook"))
	require.NoError(t, err)
	ref := res.Payment.PaymentRef
	// The buyer closed the window after passing the challenge: the webhook settles it.
	require.NoError(t, s.Payments.ApplyEvent(ctx, f.buyer, gateway.Event{ID: "ev1", Type: gateway.EventAuthorized,
		Transaction: gateway.Transaction{PaymentID: ref, Status: gateway.StatusAuthorized}}))
	pm, err := db.Store.Payment(ctx, f.buyer, res.Payment.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgress, pm.ExaminationStatus)
	// A redelivery changes nothing.
	require.NoError(t, s.Payments.ApplyEvent(ctx, f.buyer, gateway.Event{ID: "ev1", Type: gateway.EventAuthorized,
		Transaction: gateway.Transaction{PaymentID: ref, Status: gateway.StatusAuthorized}}))
	// The authorisation lapses before screening captured it: 期限切れ.
	require.NoError(t, s.Payments.ApplyEvent(ctx, f.buyer, gateway.Event{ID: "ev2", Type: gateway.EventLapsed,
		Transaction: gateway.Transaction{PaymentID: ref, Status: gateway.StatusLapsed}}))
	pm, err = db.Store.Payment(ctx, f.buyer, res.Payment.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.Expired, pm.ExaminationStatus)
	assert.Equal(t, pay.CardVoided, pm.CardStatus)
	ev, err := db.Store.PaymentEvents(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, invoices.MsgLapsed, ev[len(ev)-1].Reason)
	// Another buyer's webhook cannot reach it.
	other := newFixture(t)
	require.NoError(t, s.Payments.ApplyEvent(ctx, other.buyer, gateway.Event{ID: "ev3", Type: gateway.EventDeclined,
		Transaction: gateway.Transaction{PaymentID: ref}}))
}

func TestResubmitWithAChallengeIsKeptUntilTheBuyerReturns(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("fix"))
	require.NoError(t, err)
	_, err = db.Store.Transition(ctx, f.buyer, res.Payment.ID, pay.ActSendBack, "operator:1", "金額が違います", now, nil)
	require.NoError(t, err)
	// The new amount's authorisation asks for a challenge.
	p.decide = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/c2", Amount: r.Amount}, nil
	}
	fixed := f.submission("").Invoice
	fixed.Amount = "120000"
	out, err := s.Payments.Resubmit(ctx, f.buyer, "buyer:1", res.Payment.ID, invoices.Correction{Invoice: fixed})
	require.NoError(t, err)
	require.Equal(t, "https://psp.example/c2", out.ActionURL)
	pm, err := db.Store.Payment(ctx, f.buyer, res.Payment.ID)
	require.NoError(t, err)
	assert.True(t, pm.ActionRequired, "nothing applied before the challenge")
	next := strings.TrimSuffix(res.Payment.PaymentRef, "-1") + "-2"
	// Another buyer cannot apply it; a made-up id is not found.
	other := newFixture(t)
	_, err = s.Payments.ResubmitReturned(ctx, other.buyer, "buyer:2", res.Payment.ID, next)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.Payments.ResubmitReturned(ctx, f.buyer, "buyer:1", res.Payment.ID, "inv-999-9")
	require.ErrorIs(t, err, store.ErrNotFound)
	// Back before passing it: refused, nothing applied.
	_, err = s.Payments.ResubmitReturned(ctx, f.buyer, "buyer:1", res.Payment.ID, next)
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	// Passed: the correction kept with the payment is applied (no session needed).
	_, _ = p.set(next, func(tx *gateway.Transaction) { tx.Status = gateway.StatusAuthorized })
	done, err := s.Payments.ResubmitReturned(ctx, f.buyer, "buyer:1", res.Payment.ID, next)
	require.NoError(t, err)
	assert.Equal(t, int64(120000), done.Payment.Amount)
	assert.Equal(t, next, done.Payment.PaymentRef)
	assert.False(t, done.Payment.ActionRequired)
	_, err = db.Store.PendingCorrection(ctx, f.buyer, res.Payment.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "cleared once applied")
	// The old authorisation is released by its job.
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: res.Payment.ID, Ref: res.Payment.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusVoided, p.txs[res.Payment.PaymentRef].Status)
	assert.Equal(t, gateway.StatusAuthorized, p.txs[next].Status)
}
