package moneysuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lib/pq"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"cardpay/calendar"
	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

// The model-based test of the money flow (issue 23). Each rapid sequence is one buyer's
// payments driven by random interleavings of buyer actions (submit, submit again, cancel,
// correct), operator actions (check, complete, send back, cancel, make a file, mark it
// sent, record the transfer done or failed, retry, return), jobs (capture, release,
// settle, the daily expiry) and PSP events (late, duplicated and out-of-order webhooks,
// lapsed authorisations, answers lost to timeouts), against real PostgreSQL and the
// sandbox PSP. After every step the invariants are checked; after the sequence the jobs
// are drained and the PSP's own records are compared with the books.
//
// MONEY_SEQUENCES sets the number of sequences (default 10,000); -rapid.seed replays one
// run (the seed is printed at the start and on a failure).

// modelClock is the services' and the sandbox's time; steps move it on.
type modelClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *modelClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *modelClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Faults the PSP wrapper injects into its next call.
const (
	faultNone = iota
	// faultAnswerLost: the PSP did the work, the answer never reached us (a timeout).
	faultAnswerLost
	// faultNotReached: the request never reached the PSP.
	faultNotReached
)

// faultyPSP is the sandbox PSP behind a network that loses one call when told to. Each
// sequence has its own: a fault drawn by one worker's sequence and taken by another's
// call made a failure that its replay could not reproduce.
type faultyPSP struct {
	gateway.Gateway
	next atomic.Int32
	// injected counts the faults that hit a call (the world's count, every sequence's).
	injected *atomic.Int64
}

func (f *faultyPSP) fault() int32 {
	k := f.next.Swap(faultNone)
	if k != faultNone {
		f.injected.Add(1)
	}
	return k
}

func (f *faultyPSP) do(call func() (gateway.Transaction, error)) (gateway.Transaction, error) {
	switch f.fault() {
	case faultNotReached:
		return gateway.Transaction{}, fmt.Errorf("model: request lost: %w", gateway.ErrUnavailable)
	case faultAnswerLost:
		_, _ = call()
		return gateway.Transaction{}, fmt.Errorf("model: answer lost: %w", gateway.ErrUnavailable)
	}
	return call()
}

func (f *faultyPSP) Authorize(ctx context.Context, r gateway.AuthorizeRequest) (gateway.Transaction, error) {
	return f.do(func() (gateway.Transaction, error) { return f.Gateway.Authorize(ctx, r) })
}
func (f *faultyPSP) Capture(ctx context.Context, id string, amount int64) (gateway.Transaction, error) {
	return f.do(func() (gateway.Transaction, error) { return f.Gateway.Capture(ctx, id, amount) })
}
func (f *faultyPSP) Void(ctx context.Context, id string) (gateway.Transaction, error) {
	return f.do(func() (gateway.Transaction, error) { return f.Gateway.Void(ctx, id) })
}
func (f *faultyPSP) Refund(ctx context.Context, id string, amount int64) (gateway.Transaction, error) {
	return f.do(func() (gateway.Transaction, error) { return f.Gateway.Refund(ctx, id, amount) })
}

// modelWorld is what every sequence shares: the database, the PSP, the operators.
type modelWorld struct {
	st      *store.Store
	svc     *invoices.Services
	config  invoices.Config // what svc is built from; each sequence builds its own on its clock
	sandbox gateway.Gateway
	// faults counts the faults every sequence's PSP injected.
	faults    atomic.Int64
	pspURL    string
	clock     *modelClock
	screener1 store.Operator
	screener2 store.Operator
	mover     store.Operator
	remitter  invoices.Remitter
	seq       atomic.Int64
	// card is the one test VISA saved at the PSP; every buyer keeps its reference.
	card gateway.Card
	// expiryDay makes each daily expiry a day of its own (it runs once a day).
	expiryDay atomic.Int64
	// ending is held by a sequence's final drain and check, by the daily expiry (which
	// ends every buyer's open payments) and by a run of queued jobs (anyone's): another
	// worker's expiry or job between a sequence's drain and its look at the PSP would
	// leave a release queued or half done.
	ending sync.Mutex
	stats  modelStats
}

type modelStats struct {
	mu         sync.Mutex
	sequences  int
	steps      int
	actions    map[string]int
	refused    int
	payments   int
	transfered int
	refunded   int
	returned   int
	checks     int
	// times are the time spent in each action (MONEY_PROFILE=1).
	times map[string]time.Duration
}

func (s *modelStats) took(name string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times == nil {
		s.times = map[string]time.Duration{}
	}
	s.times[name] += d
}

func (s *modelStats) action(name string, refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps++
	s.actions[name]++
	if refused {
		s.refused++
	}
}

const modelAppOrigin = "http://app.model.test"

// modelStart is every sequence's first moment: a Tuesday morning in Tokyo.
var modelStart = time.Date(2026, 11, 24, 10, 0, 0, 0, pay.Tokyo())

func newModelWorld(t *testing.T) *modelWorld {
	ctx := context.Background()
	d, err := storetest.New(ctx)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	require.NoError(t, sandbox.Migrate(ctx, d.Store.DB))
	clock := &modelClock{now: modelStart}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var handler http.Handler
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	srv, err := sandbox.New(sandbox.Config{DB: d.Store.DB, PublicURL: ts.URL, AppOrigins: []string{modelAppOrigin},
		SecretKey: "sk_test_model", WebhookSecret: "whsec_model", Clock: clock.Now, Logger: quiet, SlowAnswer: time.Second})
	require.NoError(t, err)
	handler = srv
	client := sandbox.NewClient(ts.URL, "sk_test_model", "whsec_model", &http.Client{Timeout: 10 * time.Second})
	w := &modelWorld{st: d.Store, sandbox: client, pspURL: ts.URL, clock: clock,
		config: invoices.Config{Store: d.Store, Gateway: client, BaseURL: modelAppOrigin, Now: clock.Now, Logger: quiet},
		remitter: invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ", BankCode: "0005", BankKana: "ミツビシユーエフジエイ",
			BranchCode: "001", BranchKana: "トウキヨウエイギヨウブ", AccountType: pay.AccountCurrent, AccountNumber: "7654321"},
		stats: modelStats{actions: map[string]int{}}}
	w.svc = invoices.New(w.config)
	// Told of events as the app's services are: the notices and a request following its
	// payment are written in each change's transaction (no mail: no Mailer).
	d.Store.SetEvents(w.svc.Notices)
	for i, roles := range [][]string{{pay.RoleScreening}, {pay.RoleScreening}, {pay.RoleTransfers}} {
		op, err := d.Store.CreateOperator(ctx, store.NewOperator{EmailAddress: fmt.Sprintf("op%d@model.test", i),
			Name: fmt.Sprintf("担当%d", i), PasswordHash: "x", TOTPSecretSealed: "x", Roles: roles})
		require.NoError(t, err)
		switch i {
		case 0:
			w.screener1 = op
		case 1:
			w.screener2 = op
		default:
			w.mover = op
		}
	}
	tok, err := w.cardToken()
	require.NoError(t, err)
	w.card, err = client.SaveCard(ctx, tok)
	require.NoError(t, err)
	return w
}

// cardToken tokenises the plain test VISA as the card-entry island does.
func (w *modelWorld) cardToken() (string, error) {
	body, _ := json.Marshal(map[string]string{"number": "4111111111111111", "exp_month": "12",
		"exp_year": strconv.Itoa(w.clock.Now().Year() + 3), "cvc": "123", "name": "TARO YAMADA"})
	req, err := http.NewRequest(http.MethodPost, w.pspURL+"/v1/tokens", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", modelAppOrigin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || tok.Token == "" {
		return "", fmt.Errorf("model: token: status %d: %v", res.StatusCode, err)
	}
	return tok.Token, nil
}

// modelBuyer is one sequence's buyer with an approved supplier, its account and a card.
type modelBuyer struct {
	id, supplier, account, card int64
}

func (w *modelWorld) newBuyer(t *rapid.T) modelBuyer {
	ctx := context.Background()
	n := w.seq.Add(1)
	u, err := w.st.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "モデル株式会社",
		EmailAddress: fmt.Sprintf("model-%d@model.test", n), PasswordHash: "x", LastName: "山田", FirstName: "太郎"})
	if err != nil {
		t.Fatalf("buyer: %v", err)
	}
	sup, err := w.st.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社取引先",
		NameKana: "カブシキガイシャトリヒキサキ", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001",
		BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary,
		AccountNumber: "1234567", HolderName: "ｶ)ﾄﾘﾋｷｻｷ"})
	if err != nil {
		t.Fatalf("supplier: %v", err)
	}
	if err := w.st.SetSupplierStatus(ctx, u.BuyerID, sup.ID, pay.SupplierApproved); err != nil {
		t.Fatalf("approve supplier: %v", err)
	}
	accts, err := w.st.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	if err != nil || len(accts) == 0 {
		t.Fatalf("accounts: %v", err)
	}
	gc := w.card
	c, err := w.st.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "sandbox", Ref: gc.Ref, Brand: gc.Brand, Last4: gc.Last4,
		ExpMonth: gc.ExpMonth, ExpYear: gc.ExpYear, HolderName: gc.Holder, Fingerprint: gc.Fingerprint}, w.clock.Now())
	if err != nil {
		t.Fatalf("card: %v", err)
	}
	return modelBuyer{id: u.BuyerID, supplier: sup.ID, account: accts[0].ID, card: c.ID}
}

// refused says whether err is one of the refusals a person sees (a field error, or a
// payment that does not exist for them: a submission the card declined): the service said
// no and changed nothing. Anything else is a failure of the model.
func refused(err error) bool {
	var fe pay.FieldErrors
	return errors.As(err, &fe) || errors.Is(err, store.ErrNotFound)
}

// modelSequence is one sequence's state: its buyer and the payments it made.
type modelSequence struct {
	w *modelWorld
	// svc is the world's service on the sequence's own clock, which starts on the same
	// day every time: a replayed sequence meets the same calendar.
	svc   *invoices.Services
	psp   *faultyPSP // svc's
	clock *modelClock

	b        modelBuyer
	payments []int64
	keys     []string
}

func (s *modelSequence) pick(t *rapid.T) (store.Payment, bool) {
	if len(s.payments) == 0 {
		return store.Payment{}, false
	}
	id := s.payments[rapid.IntRange(0, len(s.payments)-1).Draw(t, "payment")]
	p, err := s.w.st.Submission(context.Background(), s.b.id, id)
	if err != nil {
		t.Fatalf("read payment %d: %v", id, err)
	}
	return p, true
}

// expect fails the sequence when err is neither nil nor a refusal.
func (s *modelSequence) expect(t *rapid.T, name string, err error) {
	switch {
	case err == nil:
		s.w.stats.action(name, false)
	case refused(err):
		s.w.stats.action(name, true)
		if os.Getenv("MONEY_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "refused %s: %v\n", name, err)
		}
	default:
		t.Fatalf("%s: unexpected error: %v", name, err)
	}
}

// gatewayErr says whether err is the PSP's unavailability (a fault the model injected):
// the services answer it so, and a job retries it.
func gatewayErr(err error) bool {
	return errors.Is(err, gateway.ErrUnavailable) || errors.Is(err, gateway.ErrInvalidState)
}

func (s *modelSequence) invoice(amount int64) pay.InvoiceInput {
	now := s.clock.Now()
	transfer := pay.EarliestTransferDate(now)
	return pay.InvoiceInput{Amount: strconv.FormatInt(amount, 10), DueDate: transfer.AddDate(0, 0, 20).Format("2006-01-02"),
		TransferDate: transfer.Format("2006-01-02"), InvoiceNumber: "M-" + strconv.Itoa(len(s.payments)+1)}
}

func (s *modelSequence) actions() map[string]func(*rapid.T) {
	ctx := context.Background()
	w := s.w
	acts := map[string]func(*rapid.T){
		"submit": func(t *rapid.T) {
			if len(s.payments) >= 3 {
				t.Skip("three payments are enough for one buyer")
			}
			amount := rapid.Int64Range(1_000, 2_000_000).Draw(t, "amount")
			key := fmt.Sprintf("model-%d-%d", s.b.id, len(s.keys))
			res, err := s.svc.Payments.Submit(ctx, s.b.id, invoices.Submission{SubmitKey: key, SupplierID: s.b.supplier,
				AccountID: s.b.account, CardID: s.b.card, Invoice: s.invoice(amount)})
			s.keys = append(s.keys, key)
			s.expect(t, "submit", err)
			if res.Payment.ID != 0 {
				s.payments = append(s.payments, res.Payment.ID)
				w.stats.mu.Lock()
				w.stats.payments++
				w.stats.mu.Unlock()
			}
		},
		"submit the same page again": func(t *rapid.T) {
			if len(s.keys) == 0 {
				t.Skip("nothing submitted")
			}
			i := rapid.IntRange(0, len(s.keys)-1).Draw(t, "key")
			res, err := s.svc.Payments.Submit(ctx, s.b.id, invoices.Submission{SubmitKey: s.keys[i], SupplierID: s.b.supplier,
				AccountID: s.b.account, CardID: s.b.card, Invoice: s.invoice(10_000)})
			s.expect(t, "submit again", err)
			if res.Payment.ID != 0 {
				for _, id := range s.payments {
					if id == res.Payment.ID {
						return
					}
				}
				s.payments = append(s.payments, res.Payment.ID) // the first try's answer was lost
			}
		},
		"buyer cancels": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			if !p.TransferState.InBank() {
				rarely(t) // trying it on a payment in the bank's hands is the point
			}
			_, err := s.svc.Payments.Cancel(ctx, s.b.id, "buyer:1", p.ID, "")
			if err == nil && p.TransferState.InBank() {
				t.Fatalf("payment %d in a transfer file (%s) was cancelled", p.ID, p.TransferState)
			}
			s.expect(t, "buyer cancel", err)
		},
		"buyer corrects": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			amount := p.Amount
			if rapid.Bool().Draw(t, "new amount") {
				amount += rapid.Int64Range(-500, 500).Draw(t, "change")
			}
			_, err := s.svc.Payments.Resubmit(ctx, s.b.id, "buyer:1", p.ID, invoices.Correction{Invoice: s.invoice(max(amount, 1_000))})
			if err == nil && p.TransferState.InBank() {
				t.Fatalf("payment %d in a transfer file (%s) was corrected", p.ID, p.TransferState)
			}
			if err != nil && gatewayErr(err) {
				err = nil // the new authorisation's answer was lost: nothing changed
			}
			s.expect(t, "buyer correct", err)
		},
		"screening passes (check, complete, capture)": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			_, err := s.svc.Screening.CheckPayment(ctx, w.screener1, p.ID)
			s.expect(t, "check", err)
			_, err = s.svc.Screening.CompleteScreening(ctx, w.screener2, p.ID)
			s.expect(t, "complete", err)
			if err == nil {
				err = s.svc.Screening.RunCaptureJob(ctx, payload(s.b.id, p.ID, p.PaymentRef))
				if err != nil && gatewayErr(err) {
					err = nil
				}
				s.expect(t, "capture job", err)
			}
		},
		"the payment goes its way to the bank (check, complete, capture, file, send)": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok || p.TransferDate == nil {
				t.Skip("no payment")
			}
			// Each step is tried whatever the last one said: the payment may be anywhere.
			_, err := s.svc.Screening.CheckPayment(ctx, w.screener1, p.ID)
			s.expect(t, "check", err)
			_, err = s.svc.Screening.CompleteScreening(ctx, w.screener2, p.ID)
			s.expect(t, "complete", err)
			err = s.svc.Screening.RunCaptureJob(ctx, payload(s.b.id, p.ID, p.PaymentRef))
			if err != nil && gatewayErr(err) {
				err = nil
			}
			s.expect(t, "capture job", err)
			f, err := s.svc.Transfers.MakeTransferFile(ctx, w.mover, *p.TransferDate, w.remitter)
			s.expect(t, "make file", err)
			if err == nil {
				s.expect(t, "file sent", s.svc.Transfers.MarkTransferFileSent(ctx, w.mover, f.ID))
			}
		},
		"operator checks": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			_, err := s.svc.Screening.CheckPayment(ctx, w.screener1, p.ID)
			s.expect(t, "check", err)
		},
		"operator completes": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			op := w.screener2
			if rapid.IntRange(0, 9).Draw(t, "same operator") == 0 {
				op = w.screener1 // dual control refuses it
			}
			_, err := s.svc.Screening.CompleteScreening(ctx, op, p.ID)
			s.expect(t, "complete", err)
		},
		"operator sends back": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			_, err := s.svc.Screening.SendBack(ctx, w.screener1, p.ID, pay.SendBackAmount, "金額をご確認ください")
			if err == nil && p.TransferState.InBank() {
				t.Fatalf("payment %d in a transfer file (%s) was sent back", p.ID, p.TransferState)
			}
			s.expect(t, "send back", err)
		},
		"operator cancels": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			if !p.TransferState.InBank() {
				rarely(t) // trying it on a payment in the bank's hands is the point
			}
			_, err := s.svc.Screening.CancelByOperator(ctx, w.screener1, p.ID, "書類に不備があるため")
			if err == nil && p.TransferState.InBank() {
				t.Fatalf("payment %d in a transfer file (%s) was cancelled by screening", p.ID, p.TransferState)
			}
			s.expect(t, "operator cancel", err)
		},
		"operator makes the day's file": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok || p.TransferDate == nil {
				t.Skip("no payment")
			}
			_, err := s.svc.Transfers.MakeTransferFile(ctx, w.mover, *p.TransferDate, w.remitter)
			s.expect(t, "make file", err)
		},
		"operator marks the file sent": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok || p.TransferFileID == nil {
				t.Skip("not in a file")
			}
			s.expect(t, "file sent", s.svc.Transfers.MarkTransferFileSent(ctx, w.mover, *p.TransferFileID))
		},
		"bank pays": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			_, err := s.svc.Transfers.CompleteTransfer(ctx, w.mover, p.ID)
			s.expect(t, "transfer done", err)
		},
		"bank returns the transfer": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			s.expect(t, "transfer failed", s.svc.Transfers.FailTransfer(ctx, w.mover, p.ID, "口座なし"))
		},
		"operator retries": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			day := calendar.AddBankDays(s.clock.Now().In(pay.Tokyo()), 1)
			s.expect(t, "retry", s.svc.Transfers.RetryTransfer(ctx, w.mover, p.ID, day))
		},
		"operator returns the money": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			_, err := s.svc.Transfers.CancelFailedTransfer(ctx, w.mover, p.ID, "口座が解約されていたため")
			s.expect(t, "return", err)
		},
		"capture job runs": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			err := s.svc.Screening.RunCaptureJob(ctx, payload(s.b.id, p.ID, p.PaymentRef))
			if err != nil && gatewayErr(err) {
				err = nil // a job that fails is retried
			}
			s.expect(t, "capture job", err)
		},
		"release job runs": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			if p.ExaminationStatus != pay.Cancel && p.ExaminationStatus != pay.Expired {
				t.Skip("only an ended payment's card is released")
			}
			err := s.svc.Payments.RunCardJob(ctx, payload(s.b.id, p.ID, p.PaymentRef))
			if err != nil && gatewayErr(err) {
				err = nil
			}
			s.expect(t, "release job", err)
		},
		"queued jobs run": func(t *rapid.T) {
			n := rapid.IntRange(1, 5).Draw(t, "jobs")
			w.ending.Lock()
			defer w.ending.Unlock()
			s.expect(t, "jobs", s.drain(t, n))
		},
		"daily expiry runs": func(t *rapid.T) {
			rarely(t)
			// Every open payment is past this day's transfer date.
			day := time.Date(2031, 1, 1, 0, 0, 0, 0, pay.Tokyo()).AddDate(0, 0, int(w.expiryDay.Add(1)))
			w.ending.Lock()
			_, err := s.svc.Payments.ExpireDue(ctx, day)
			w.ending.Unlock()
			s.expect(t, "expiry", err)
		},
		"PSP lapses the authorisation": func(t *rapid.T) {
			rarely(t)
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			tx, err := w.sandbox.Void(ctx, p.PaymentRef)
			if err != nil {
				t.Skip("nothing to lapse")
			}
			ev := gateway.Event{ID: "evt-lapse-" + p.PaymentRef, Type: gateway.EventLapsed, Created: s.clock.Now(), Transaction: tx}
			for range rapid.IntRange(1, 3).Draw(t, "deliveries") {
				s.expect(t, "lapsed webhook", s.svc.Payments.ApplyEvent(ctx, s.b.id, ev))
			}
		},
		"late or out-of-order webhook": func(t *rapid.T) {
			p, ok := s.pick(t)
			if !ok {
				t.Skip("no payment")
			}
			typ := rapid.SampledFrom([]gateway.EventType{gateway.EventAuthorized, gateway.EventDeclined, gateway.EventCaptured,
				gateway.EventRefunded, gateway.EventVoided, gateway.EventActionFailed}).Draw(t, "event")
			ref := p.PaymentRef
			if p.AuthSeq > 1 && rapid.Bool().Draw(t, "an earlier authorisation") {
				ref = fmt.Sprintf("inv-%d-%d", p.ID, p.AuthSeq-1)
			}
			ev := gateway.Event{ID: "evt-late-" + ref, Type: typ, Created: s.clock.Now(),
				Transaction: gateway.Transaction{PaymentID: ref, ResultCode: gateway.ResultDeclined}}
			for range rapid.IntRange(1, 2).Draw(t, "deliveries") {
				s.expect(t, "webhook", s.svc.Payments.ApplyEvent(ctx, s.b.id, ev))
			}
		},
		"the PSP's next answer is lost": func(t *rapid.T) {
			s.psp.next.Store(int32(rapid.IntRange(faultAnswerLost, faultNotReached).Draw(t, "fault")))
			w.stats.action("fault", false)
		},
		"time passes": func(t *rapid.T) {
			s.clock.Add(time.Duration(rapid.IntRange(1, 48).Draw(t, "hours")) * time.Hour)
			w.stats.action("time", false)
		},
		"": func(t *rapid.T) { s.check(t, false) },
	}
	// The way forward is taken more often than the ways out, so that most sequences
	// reach the capture and the bank: rapid draws the actions alike.
	for _, k := range []string{"screening passes (check, complete, capture)", "the payment goes its way to the bank (check, complete, capture, file, send)", "bank pays"} {
		acts[k+" "] = acts[k]
		acts[k+"  "] = acts[k]
	}
	for _, k := range []string{"bank returns the transfer", "operator returns the money"} {
		acts[k+" "] = acts[k]
	}
	if os.Getenv("MONEY_PROFILE") != "" {
		for k, f := range acts {
			acts[k] = func(t *rapid.T) {
				start := time.Now()
				defer func() { w.stats.took(k, time.Since(start)) }()
				f(t)
			}
		}
	}
	return acts
}

// rarely lets an action through one time in four: the ones that end a payment (expiry,
// a lapse) would otherwise end most sequences before the money moved.
func rarely(t *rapid.T) {
	if rapid.IntRange(0, 3).Draw(t, "rarely") != 0 {
		t.Skip("not this time")
	}
}

func payload(buyerID, id int64, ref string) json.RawMessage {
	b, _ := json.Marshal(invoices.PaymentJob{BuyerID: buyerID, ID: id, Ref: ref})
	return b
}

// moneyJobKinds are the jobs that move money (the model's service has no Mailer, so no
// notification mail is queued).
var moneyJobKinds = []string{invoices.SettleJobKind, invoices.CardJobKind, invoices.CaptureJobKind}

// drain runs up to n queued money jobs that are due (all of them when n < 0), as the
// runner does: a job that fails is retried (here: at once, on the next claim).
func (s *modelSequence) drain(t *rapid.T, n int) error {
	ctx := context.Background()
	w := s.w
	worker := fmt.Sprintf("model-%d", w.seq.Add(1))
	for i := 0; n < 0 || i < n; i++ {
		// A job queued for later (a settle check, a stray authorisation's release) is due
		// when the drain is the sequence's end.
		// A job queued without a time is due at the database's now, the real time.
		at := s.clock.Now()
		if real := time.Now(); real.After(at) {
			at = real
		}
		if n < 0 {
			at = at.Add(24 * time.Hour)
		}
		j, err := w.st.ClaimJob(ctx, worker, moneyJobKinds, at, 72*time.Hour)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var run func(context.Context, json.RawMessage) error
		switch j.Kind {
		case invoices.SettleJobKind:
			run = s.svc.Payments.RunSettleJob
		case invoices.CardJobKind:
			run = s.svc.Payments.RunCardJob
		case invoices.CaptureJobKind:
			run = s.svc.Screening.RunCaptureJob
		default:
			run = func(context.Context, json.RawMessage) error { return nil }
		}
		if err := run(ctx, j.Payload); err != nil {
			if !gatewayErr(err) {
				t.Fatalf("job %s %s: %v", j.Kind, j.Payload, err)
			}
			if _, err := w.st.FailJob(ctx, j.ID, worker, err.Error(), at, 0); err != nil {
				return err
			}
			continue
		}
		if err := w.st.CompleteJob(ctx, j.ID, worker, at); err != nil {
			return err
		}
		if i > 10_000 {
			return errors.New("model: the jobs do not drain")
		}
	}
	return nil
}

// check proves the invariants on the sequence's buyer. final adds the PSP's side, once
// the jobs drained.
func (s *modelSequence) check(t *rapid.T, final bool) {
	ctx := context.Background()
	w := s.w
	w.stats.mu.Lock()
	w.stats.checks++
	w.stats.mu.Unlock()
	if len(s.payments) == 0 {
		return
	}
	rows, err := w.st.PaymentLedgerOf(ctx, s.payments)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if final {
		// The database refuses an unbalanced posting at commit: this proves it did.
		var unbalanced int
		if err := w.st.DB.Get(&unbalanced, `SELECT count(*) FROM (SELECT posting_id FROM ledger_entries WHERE invoice_id = ANY($1)
			GROUP BY posting_id HAVING sum(amount) <> 0) u`, pq.Int64Array(s.payments)); err != nil {
			t.Fatalf("%v", err)
		}
		if unbalanced > 0 {
			t.Fatalf("invariant: the ledger balances: %d postings do not", unbalanced)
		}
	}
	var taken, refunded, sent, fees, held int64
	for _, r := range rows {
		if !r.Agrees() {
			t.Fatalf("invariant: state and ledger agree: payment %d (%s, card %s, transfer %q): journal %v, state says %v",
				r.ID, r.Status.Label(), r.Card, r.Transfer, r.Balances, r.Expected())
		}
		switch {
		case r.Captures > 1:
			t.Fatalf("invariant: one capture: payment %d captured %d times", r.ID, r.Captures)
		case r.Refunds > r.Captures:
			t.Fatalf("invariant: no refund without a capture: payment %d", r.ID)
		case r.Filed > 0 && r.Captures == 0:
			t.Fatalf("invariant: no transfer without a capture: payment %d in a file", r.ID)
		case r.Done > 1:
			t.Fatalf("invariant: transferred at most once: payment %d transferred %d times", r.ID, r.Done)
		case r.Refunds > 0 && (r.Done > 0 || (r.Filed > 0 && r.Transfer != pay.TransferReturned)):
			t.Fatalf("invariant: no refund after a payment entered a transfer file: payment %d (%q, done %d)", r.ID, r.Transfer, r.Done)
		case r.Transfer == pay.TransferDone && r.Status != pay.TransferCompleted:
			t.Fatalf("invariant: a done transfer is 振込完了: payment %d is %s", r.ID, r.Status.Label())
		}
		m := r.Money()
		if r.Captures > 0 {
			taken += m.Charged()
		}
		if r.Refunds > 0 {
			refunded += m.Charged()
		}
		sent += -r.Balances[pay.AccountBank]
		fees += -r.Balances[pay.AccountFeeRevenue] - r.Balances[pay.AccountPromotionExpense]
		held += -r.Balances[pay.AccountSupplierPayable] - r.Balances[pay.AccountTransfersInTransit]
	}
	if taken != sent+fees+held+refunded {
		t.Fatalf("invariant: money taken from cards (%d) = sent to suppliers (%d) + fees (%d) + held (%d) + refunded (%d)",
			taken, sent, fees, held, refunded)
	}
	if !final {
		return
	}
	// The PSP's records: every authorisation the PSP holds, per payment and per id.
	for _, r := range rows {
		var captured, refundedAtPSP int64
		var holds []string
		for seq := 1; ; seq++ {
			ref := fmt.Sprintf("inv-%d-%d", r.ID, seq)
			tx, err := w.sandbox.Lookup(ctx, ref)
			if errors.Is(err, gateway.ErrNotFound) {
				if seq > 1 && seq > authSeqOf(r.PaymentRef)+1 {
					break
				}
				continue
			}
			if err != nil {
				t.Fatalf("lookup %s: %v", ref, err)
			}
			captured += tx.Captured
			refundedAtPSP += tx.Refunded
			if tx.Status == gateway.StatusAuthorized {
				holds = append(holds, ref)
			}
		}
		if got := r.Balances[pay.AccountCardReceivable]; got != captured-refundedAtPSP {
			t.Fatalf("invariant: the PSP and the ledger agree: payment %d: PSP captured %d, refunded %d; ledger receivable %d (%s, card %s)",
				r.ID, captured, refundedAtPSP, got, r.Status.Label(), r.Card)
		}
		if r.Status == pay.InProgressExaminationCompleted && r.Card == pay.CardAuthorized {
			t.Fatalf("invariant: a completed screening is captured once the jobs ran: payment %d is 審査完了 with its card only authorised (%s)",
				r.ID, r.PaymentRef)
		}
		live := r.Card == pay.CardAuthorized && (r.Status == pay.InProgress || r.Status == pay.InProgressExaminationChecked ||
			r.Status == pay.InProgressExaminationCompleted)
		for _, ref := range holds {
			if !live || ref != r.PaymentRef {
				t.Fatalf("invariant: no authorisation without its payment: %s still holds money (payment %s, card %s, current %s)",
					ref, r.Status.Label(), r.Card, r.PaymentRef)
			}
		}
		w.stats.mu.Lock()
		switch {
		case r.Transfer == pay.TransferDone:
			w.stats.transfered++
		case r.Transfer == pay.TransferReturned:
			w.stats.returned++
		}
		if r.Refunds > 0 {
			w.stats.refunded++
		}
		w.stats.mu.Unlock()
	}
}

func authSeqOf(ref string) int {
	n, _ := strconv.Atoi(ref[strings.LastIndexByte(ref, '-')+1:])
	return n
}

func modelSequences() int {
	if n, err := strconv.Atoi(os.Getenv("MONEY_SEQUENCES")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// buyerSequences is how many sequences one buyer serves.
const buyerSequences = 25

func modelWorkers() int {
	if n, err := strconv.Atoi(os.Getenv("MONEY_WORKERS")); err == nil && n > 0 {
		return n
	}
	return 2
}

func TestMoneyModel(t *testing.T) {
	w := newModelWorld(t)
	n, workers := modelSequences(), modelWorkers()
	require.NoError(t, flag.Set("rapid.checks", strconv.Itoa((n+workers-1)/workers)))
	require.NoError(t, flag.Set("rapid.steps", "10"))
	base, err := strconv.ParseUint(flag.Lookup("rapid.seed").Value.String(), 10, 64)
	require.NoError(t, err)
	if base == 0 {
		base = uint64(time.Now().UnixNano())
	}
	seed := strconv.FormatUint(base, 10)
	t.Logf("money model: %d sequences in %d workers, seed %s (replay: MONEY_WORKERS=%d MONEY_SEQUENCES=%d go test ./invoices/moneysuite -run TestMoneyModel -v -rapid.seed=%s)",
		n, workers, seed, workers, n, seed)
	start := time.Now()
	// Each worker is a rapid.Check of its own, seeded base+i. rapid reads its seed flag
	// when a check starts, before the first sequence runs: the flag is held until then.
	var seedMu sync.Mutex
	t.Run("workers", func(t *testing.T) {
		for i := range workers {
			t.Run(fmt.Sprintf("worker-%d", i), func(t *testing.T) {
				t.Parallel()
				seedMu.Lock()
				require.NoError(t, flag.Set("rapid.seed", strconv.FormatUint(base+uint64(i), 10)))
				var release sync.Once
				defer release.Do(seedMu.Unlock)
				// A buyer serves a run of sequences (each checks only its own payments):
				// a new buyer for each would double the time of a short sequence.
				var buyer modelBuyer
				var served int
				rapid.Check(t, func(rt *rapid.T) {
					release.Do(seedMu.Unlock)
					clock := &modelClock{now: modelStart}
					c := w.config
					c.Now = clock.Now
					psp := &faultyPSP{Gateway: w.sandbox, injected: &w.faults}
					c.Gateway = psp
					svc := invoices.New(c)
					if served%buyerSequences == 0 {
						buyer = w.newBuyer(rt)
					}
					served++
					s := &modelSequence{w: w, b: buyer, svc: svc, psp: psp, clock: clock}
					acts := s.actions()
					// Every sequence starts with a payment: the steps then interleave on it.
					acts["submit"](rt)
					rt.Repeat(acts)
					w.ending.Lock()
					defer w.ending.Unlock()
					if err := s.drain(rt, -1); err != nil {
						rt.Fatalf("drain: %v", err)
					}
					s.check(rt, true)
					w.stats.mu.Lock()
					w.stats.sequences++
					w.stats.mu.Unlock()
				})
			})
		}
	})
	failed := t.Failed()
	// The whole book: every posting balances, and the trial balance sums to zero.
	unbalanced, err := w.st.LedgerUnbalanced(context.Background())
	require.NoError(t, err)
	trial, err := w.st.TrialBalance(context.Background(), time.Now().Add(24*time.Hour*365*10))
	require.NoError(t, err)
	var sum int64
	for _, v := range trial {
		sum += v
	}
	st := &w.stats
	row := func(what, figure string, holds bool) {
		moneyRow("model", what, figure, holds && !failed)
	}
	row("sequences run (random interleavings, seed "+seed+")", fmt.Sprintf("%d sequences, %d steps (%d refused as the rules say), %d payments, %d invariant checks, %s",
		st.sequences, st.steps, st.refused, st.payments, st.checks, time.Since(start).Round(time.Second)), st.sequences >= n)
	row("actions taken", actionSummary(st.actions), true)
	if len(st.times) > 0 {
		times := map[string]int{}
		for k, d := range st.times {
			times[k] = int(d.Milliseconds())
		}
		row("milliseconds spent per action (MONEY_PROFILE)", actionSummary(times), true)
	}
	row("faults injected at the PSP (answer lost or request lost)", fmt.Sprintf("%d", w.faults.Load()), true)
	row("outcomes", fmt.Sprintf("%d transferred, %d refunded, %d returned after a failed transfer", st.transfered, st.refunded, st.returned), true)
	row("violations (ledger balances, taken = sent + fees + held + refunded, no refund after a file, no transfer without a capture, transferred at most once, state = ledger, PSP = ledger, no stray authorisation)",
		fmt.Sprintf("%d", boolInt(failed)), !failed)
	row("whole book at the end", fmt.Sprintf("%d unbalanced postings; trial balance sums to %d", len(unbalanced), sum), len(unbalanced) == 0 && sum == 0)
	require.Empty(t, unbalanced)
	require.Zero(t, sum)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func actionSummary(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slicesSort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

func slicesSort(s []string) { slices.Sort(s) }
