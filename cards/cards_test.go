package cards_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/cards"
	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// now is the tests' clock: November 2026 in Tokyo.
var now = time.Date(2026, 11, 20, 10, 0, 0, 0, pay.Tokyo())

// fakeGateway plays the PSP's answers the rules must handle, and records the calls.
type fakeGateway struct {
	mu        sync.Mutex
	card      gateway.Card
	saveErr   error
	authorize func(gateway.AuthorizeRequest) (gateway.Transaction, error)
	lookup    func(string) (gateway.Transaction, error)
	verify    func(http.Header, []byte) (gateway.Event, error)
	// setup is what FinishCardSetup answers; setups records the calls of both setup
	// methods.
	setup    gateway.CardSetupResult
	setupErr error
	setups   []string
	auths    []gateway.AuthorizeRequest
	lookups  []string
}

func (f *fakeGateway) Name() string { return "fake" }
func (f *fakeGateway) SaveCard(_ context.Context, token string) (gateway.Card, error) {
	if token == "used" {
		return gateway.Card{}, fmt.Errorf("fake: %w", gateway.ErrBadToken)
	}
	return f.card, f.saveErr
}
func (f *fakeGateway) Authorize(_ context.Context, r gateway.AuthorizeRequest) (gateway.Transaction, error) {
	f.mu.Lock()
	f.auths = append(f.auths, r)
	f.mu.Unlock()
	if f.authorize == nil {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved, Amount: r.Amount}, nil
	}
	return f.authorize(r)
}
func (f *fakeGateway) Capture(context.Context, string, int64) (gateway.Transaction, error) {
	return gateway.Transaction{}, errors.New("not used")
}
func (f *fakeGateway) Void(context.Context, string) (gateway.Transaction, error) {
	return gateway.Transaction{}, errors.New("not used")
}
func (f *fakeGateway) Refund(context.Context, string, int64) (gateway.Transaction, error) {
	return gateway.Transaction{}, errors.New("not used")
}
func (f *fakeGateway) Lookup(_ context.Context, id string) (gateway.Transaction, error) {
	f.mu.Lock()
	f.lookups = append(f.lookups, id)
	f.mu.Unlock()
	if f.lookup == nil {
		return gateway.Transaction{}, gateway.ErrNotFound
	}
	return f.lookup(id)
}
func (f *fakeGateway) VerifyWebhook(h http.Header, body []byte, _ time.Time) (gateway.Event, error) {
	return f.verify(h, body)
}
func (f *fakeGateway) StartCardSetup(_ context.Context, r gateway.CardSetupRequest) (gateway.CardSetup, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setups = append(f.setups, fmt.Sprintf("start hosted=%v return=%s", r.Hosted, r.ReturnURL))
	if r.Hosted {
		return gateway.CardSetup{ID: "setup_1", RedirectURL: "https://psp.example/hosted/setup_1"}, nil
	}
	return gateway.CardSetup{ID: "setup_1", FieldsURL: "https://psp.example/fields/setup_1"}, nil
}
func (f *fakeGateway) FinishCardSetup(_ context.Context, id string) (gateway.CardSetupResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.setups = append(f.setups, "finish "+id)
	return f.setup, f.setupErr
}

var cardSeq atomic.Int64

// visa is a fresh approved VISA card (its own fingerprint).
func visa() gateway.Card {
	n := cardSeq.Add(1)
	return gateway.Card{Ref: fmt.Sprintf("card_%d", n), Brand: pay.BrandVISA, Last4: "1111", ExpMonth: 12, ExpYear: 2029,
		Holder: "TARO YAMADA", Fingerprint: fmt.Sprintf("fp_%d", n)}
}

func newBuyer(t *testing.T) int64 {
	t.Helper()
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", EmailAddress: fmt.Sprintf("cards-%d@test.example", cardSeq.Add(1)),
		PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return u.BuyerID
}

func newService(gw *fakeGateway) *cards.Service {
	return &cards.Service{Store: db.Store, Gateway: gw, BaseURL: "https://pay.example.jp", Now: func() time.Time { return now }}
}

func refusal(t *testing.T, err error) *cards.Refusal {
	t.Helper()
	r, ok := cards.AsRefusal(err)
	require.True(t, ok, "a refusal, got %v", err)
	return r
}

func count(t *testing.T, buyerID int64) int {
	t.Helper()
	n, err := db.Store.CardCount(context.Background(), buyerID)
	require.NoError(t, err)
	return n
}

func TestAddCardVerifiesBeforeSaving(t *testing.T) {
	ctx := context.Background()
	gw := &fakeGateway{card: visa()}
	s := newService(gw)
	buyer := newBuyer(t)

	added, err := s.AddCard(ctx, buyer, " tok_1 ")
	require.NoError(t, err)
	require.NotNil(t, added.Card)
	assert.True(t, added.Card.IsDefault, "the first card is the default")
	assert.Equal(t, "1111", added.Card.Last4)
	assert.Equal(t, "12/29", added.Card.Expiry())
	require.Len(t, gw.auths, 1)
	a := gw.auths[0]
	assert.True(t, a.VerifyOnly)
	assert.Zero(t, a.Amount)
	assert.Equal(t, gw.card.Ref, a.CardRef)
	assert.Equal(t, "cardcheck-", a.PaymentID[:10])
	assert.Equal(t, "https://pay.example.jp/myaccount/creditcards/verify/return?payment_id="+a.PaymentID, a.ReturnURL)

	// The same card again: refused before the PSP is asked to verify it.
	_, err = s.AddCard(ctx, buyer, "tok_2")
	assert.Equal(t, cards.MsgDuplicate, refusal(t, err).Message)
	assert.Len(t, gw.auths, 1)
	assert.Equal(t, 1, count(t, buyer))
}

func TestAddCardRefusals(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	for _, tc := range []struct {
		name  string
		card  gateway.Card
		token string
		msg   string
		code  gateway.ResultCode
	}{
		{"AMEX", gateway.Card{Ref: "c", Brand: pay.BrandAMEX, Last4: "0005", ExpMonth: 1, ExpYear: 2030, Fingerprint: "amex"}, "tok",
			"American Express はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。", gateway.ResultBrandNotAccepted},
		{"DINERS", gateway.Card{Ref: "c", Brand: pay.BrandDINERS, Last4: "1667", ExpMonth: 1, ExpYear: 2030, Fingerprint: "diners"}, "tok",
			"Diners Club はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。", gateway.ResultBrandNotAccepted},
		{"expired", gateway.Card{Ref: "c", Brand: pay.BrandJCB, Last4: "0000", ExpMonth: 10, ExpYear: 2026, Fingerprint: "old"}, "tok",
			gateway.ResultMessage(gateway.ResultExpiredCard), gateway.ResultExpiredCard},
		{"used token", visa(), "used", cards.MsgTokenUnusable, ""},
		{"no token", visa(), "  ", cards.MsgTokenMissing, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := &fakeGateway{card: tc.card}
			_, err := newService(gw).AddCard(ctx, buyer, tc.token)
			r := refusal(t, err)
			assert.Equal(t, tc.msg, r.Message)
			assert.Equal(t, tc.code, r.Code)
			assert.Equal(t, "token", r.Field)
			assert.Empty(t, gw.auths, "nothing is verified")
			assert.Zero(t, count(t, buyer), "nothing is saved")
		})
	}
}

// A card entered into the PSP's fields or hosted page: the setup's id opens it, the same
// checks as a token's apply, and only a card the PSP did not verify is verified again.
func TestAddSetupCard(t *testing.T) {
	ctx := context.Background()
	gw := &fakeGateway{}
	s := newService(gw)
	cs, err := s.StartSetup(ctx, false)
	require.NoError(t, err)
	assert.Equal(t, "https://psp.example/fields/setup_1", cs.FieldsURL)
	_, err = s.StartSetup(ctx, true)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"start hosted=false return=https://pay.example.jp/myaccount/creditcards/new/return",
		"start hosted=true return=https://pay.example.jp/myaccount/creditcards/new/return",
	}, gw.setups)

	t.Run("not verified by the PSP: verified here", func(t *testing.T) {
		buyer := newBuyer(t)
		gw := &fakeGateway{setup: gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: visa()}}
		added, err := newService(gw).AddSetupCard(ctx, buyer, "setup_1")
		require.NoError(t, err)
		require.NotNil(t, added.Card)
		require.Len(t, gw.auths, 1)
		assert.True(t, gw.auths[0].VerifyOnly)
		assert.Equal(t, gw.setup.Card.Ref, gw.auths[0].CardRef)
		assert.Equal(t, 1, count(t, buyer))
	})
	t.Run("verified by the PSP: saved without a second check", func(t *testing.T) {
		buyer := newBuyer(t)
		gw := &fakeGateway{setup: gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: visa(), Verified: true}}
		added, err := newService(gw).AddSetupCard(ctx, buyer, "seti_1")
		require.NoError(t, err)
		require.NotNil(t, added.Card)
		assert.Empty(t, gw.auths, "no zero-amount authorisation")
		check, err := db.Store.CardCheck(ctx, buyer, added.PaymentID)
		require.NoError(t, err, "the card check is recorded")
		assert.Equal(t, store.CardCheckAuthorized, check.Status)
		assert.Equal(t, 1, count(t, buyer))

		// The same card through another setup: a duplicate.
		gw.setup.Card.Ref = "card_other"
		_, err = newService(gw).AddSetupCard(ctx, buyer, "seti_2")
		assert.Equal(t, cards.MsgDuplicate, refusal(t, err).Message)
		assert.Equal(t, 1, count(t, buyer))
	})
	amex := gateway.Card{Ref: "c", Brand: pay.BrandAMEX, Last4: "0005", ExpMonth: 1, ExpYear: 2030, Fingerprint: "amex"}
	for _, tc := range []struct {
		name  string
		setup gateway.CardSetupResult
		err   error
		id    string
		msg   string
		code  gateway.ResultCode
	}{
		{"open: no card entered", gateway.CardSetupResult{Status: gateway.SetupOpen}, nil, "setup_1", cards.MsgTokenMissing, ""},
		{"challenge not passed", gateway.CardSetupResult{Status: gateway.SetupRequiresAction}, nil, "seti_1", cards.MsgChallengeUnfin, gateway.ResultActionRequired},
		{"declined in the setup", gateway.CardSetupResult{Status: gateway.SetupDeclined, ResultCode: gateway.ResultInsufficientFunds}, nil, "seti_1",
			gateway.ResultMessage(gateway.ResultInsufficientFunds), gateway.ResultInsufficientFunds},
		{"declined without a code", gateway.CardSetupResult{Status: gateway.SetupDeclined}, nil, "seti_1",
			gateway.ResultMessage(gateway.ResultDeclined), gateway.ResultDeclined},
		{"AMEX", gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: amex, Verified: true}, nil, "seti_1",
			"American Express はご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。", gateway.ResultBrandNotAccepted},
		{"unknown setup", gateway.CardSetupResult{}, fmt.Errorf("fake: %w", gateway.ErrNotFound), "setup_x", cards.MsgTokenUnusable, ""},
		{"expired setup", gateway.CardSetupResult{}, fmt.Errorf("fake: %w", gateway.ErrBadToken), "setup_x", cards.MsgTokenUnusable, ""},
		{"PSP unavailable", gateway.CardSetupResult{}, fmt.Errorf("fake: %w", gateway.ErrUnavailable), "setup_x",
			gateway.ResultMessage(gateway.ResultProcessorError), gateway.ResultProcessorError},
		{"no setup id", gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: visa()}, nil, " ", cards.MsgTokenMissing, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buyer := newBuyer(t)
			gw := &fakeGateway{setup: tc.setup, setupErr: tc.err}
			_, err := newService(gw).AddSetupCard(ctx, buyer, tc.id)
			r := refusal(t, err)
			assert.Equal(t, tc.msg, r.Message)
			assert.Equal(t, tc.code, r.Code)
			assert.Empty(t, gw.auths, "nothing is verified")
			assert.Zero(t, count(t, buyer), "nothing is saved")
		})
	}
}

func TestTheSixthCardIsRefused(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	for range pay.MaxSavedCards {
		gw := &fakeGateway{card: visa()}
		_, err := newService(gw).AddCard(ctx, buyer, "tok")
		require.NoError(t, err)
	}
	gw := &fakeGateway{card: visa()}
	_, err := newService(gw).AddCard(ctx, buyer, "tok")
	assert.Equal(t, cards.MsgTooMany, refusal(t, err).Message)
	assert.Empty(t, gw.auths)
	assert.Equal(t, pay.MaxSavedCards, count(t, buyer))
}

func TestDeclinedVerificationSavesNothing(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	for _, code := range []gateway.ResultCode{gateway.ResultInsufficientFunds, gateway.ResultCardRestricted, gateway.ResultExpiredCard,
		gateway.ResultSecurityCodeWrong, gateway.ResultOverLimit, gateway.ResultProcessorError} {
		gw := &fakeGateway{card: visa(), authorize: func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusDeclined, ResultCode: code}, nil
		}}
		s := newService(gw)
		s.DeclineLimit = 100 // six declines in a row; the lock has tests of its own (locks_test.go)
		_, err := s.AddCard(ctx, buyer, "tok")
		r := refusal(t, err)
		assert.Equal(t, gateway.ResultMessage(code), r.Message, code)
		assert.Equal(t, code, r.Code)
		check, err := db.Store.CardCheck(ctx, buyer, gw.auths[0].PaymentID)
		require.NoError(t, err)
		assert.Equal(t, store.CardCheckDeclined, check.Status)
		assert.Equal(t, string(code), check.ResultCode)
	}
	assert.Zero(t, count(t, buyer))
}

func TestChallengeThenReturn(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	status := gateway.StatusRequiresAction
	var result gateway.ResultCode
	gw := &fakeGateway{card: visa(),
		authorize: func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/3ds/1"}, nil
		},
		lookup: func(id string) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: id, Status: status, ResultCode: result}, nil
		},
	}
	s := newService(gw)
	added, err := s.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	assert.Nil(t, added.Card)
	assert.Equal(t, "https://psp.example/3ds/1", added.ActionURL)
	assert.Zero(t, count(t, buyer), "nothing is saved before the challenge is passed")

	// Back without finishing the challenge.
	_, err = s.FinishCheck(ctx, buyer, added.PaymentID)
	assert.Equal(t, cards.MsgChallengeUnfin, refusal(t, err).Message)
	assert.Zero(t, count(t, buyer))

	// Another buyer cannot finish (or read) it.
	_, err = s.FinishCheck(ctx, newBuyer(t), added.PaymentID)
	assert.ErrorIs(t, err, store.ErrNotFound)

	status, result = gateway.StatusAuthorized, gateway.ResultApproved
	done, err := s.FinishCheck(ctx, buyer, added.PaymentID)
	require.NoError(t, err)
	require.NotNil(t, done.Card)
	assert.Equal(t, 1, count(t, buyer))

	// A reload answers the same without asking the PSP again.
	lookups := len(gw.lookups)
	again, err := s.FinishCheck(ctx, buyer, added.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, done.Card.ID, again.Card.ID)
	assert.Len(t, gw.lookups, lookups)
	assert.Len(t, gw.auths, 1, "one verification")
}

func TestFailedChallengeSavesNothing(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	gw := &fakeGateway{card: visa(),
		authorize: func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/3ds/2"}, nil
		},
		lookup: func(id string) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: id, Status: gateway.StatusDeclined, ResultCode: gateway.ResultChallengeFailed}, nil
		},
	}
	s := newService(gw)
	added, err := s.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	_, err = s.FinishCheck(ctx, buyer, added.PaymentID)
	assert.Equal(t, gateway.ResultMessage(gateway.ResultChallengeFailed), refusal(t, err).Message)
	assert.Zero(t, count(t, buyer))
}

// The timeout card: the PSP authorised but its answer was lost. The service looks the
// verification up under the same payment id and never verifies again under a new one.
func TestUnansweredVerificationIsLookedUp(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	gw := &fakeGateway{card: visa(),
		authorize: func(gateway.AuthorizeRequest) (gateway.Transaction, error) {
			return gateway.Transaction{}, fmt.Errorf("fake: %w", gateway.ErrUnavailable)
		},
		lookup: func(id string) (gateway.Transaction, error) {
			return gateway.Transaction{PaymentID: id, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved}, nil
		},
	}
	added, err := newService(gw).AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	require.NotNil(t, added.Card)
	require.Len(t, gw.auths, 1, "never a second authorisation")
	assert.Equal(t, []string{gw.auths[0].PaymentID}, gw.lookups, "looked up by the same payment id")
	assert.Equal(t, 1, count(t, buyer))

	// The PSP never saw it: a processor error, the check is closed.
	gw2 := &fakeGateway{card: visa(), authorize: gw.authorize}
	_, err = newService(gw2).AddCard(ctx, buyer, "tok")
	assert.Equal(t, gateway.ResultProcessorError, refusal(t, err).Code)
	check, err := db.Store.CardCheck(ctx, buyer, gw2.auths[0].PaymentID)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckDeclined, check.Status)

	// No answer to the lookup either: the outcome is unknown; the check stays open for
	// the webhook, and the buyer is told so.
	gw3 := &fakeGateway{card: visa(), authorize: gw.authorize, lookup: func(string) (gateway.Transaction, error) {
		return gateway.Transaction{}, gateway.ErrUnavailable
	}}
	_, err = newService(gw3).AddCard(ctx, buyer, "tok")
	assert.Equal(t, gateway.ResultTimeout, refusal(t, err).Code)
	check, err = db.Store.CardCheck(ctx, buyer, gw3.auths[0].PaymentID)
	require.NoError(t, err)
	assert.Equal(t, store.CardCheckPending, check.Status)
	assert.Len(t, gw3.auths, 1)
	assert.Equal(t, 1, count(t, buyer))
}

func TestSetDefaultAndDelete(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	first, err := newService(&fakeGateway{card: visa()}).AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	second, err := newService(&fakeGateway{card: visa()}).AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	s := newService(&fakeGateway{})
	require.NoError(t, s.SetDefault(ctx, buyer, second.Card.ID))
	list, err := s.Cards(ctx, buyer)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, second.Card.ID, list[0].ID)
	assert.True(t, list[0].IsDefault)

	// A card that has expired since it was saved is marked and cannot be chosen.
	later := newService(&fakeGateway{})
	later.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, pay.Tokyo()) }
	list, err = later.Cards(ctx, buyer)
	require.NoError(t, err)
	assert.True(t, list[0].Expired)
	err = later.SetDefault(ctx, buyer, first.Card.ID)
	assert.Equal(t, cards.MsgExpiredChosen, refusal(t, err).Message)

	other := newBuyer(t)
	assert.ErrorIs(t, s.SetDefault(ctx, other, first.Card.ID), store.ErrNotFound)
	assert.ErrorIs(t, s.Delete(ctx, other, first.Card.ID), store.ErrNotFound)
	require.NoError(t, s.Delete(ctx, buyer, second.Card.ID))
	list, err = s.Cards(ctx, buyer)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.True(t, list[0].IsDefault, "the remaining card becomes the default")
}

func TestApprove(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	added, err := newService(&fakeGateway{card: visa()}).AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	cardID := added.Card.ID
	gw := &fakeGateway{}
	s := newService(gw)
	req := func(amount int64, id string) cards.ApproveRequest {
		return cards.ApproveRequest{CardID: cardID, Amount: amount, PaymentID: id, ReturnURL: "/payments/waiting/1/creditcard"}
	}

	a, err := s.Approve(ctx, buyer, req(12_345, "pay-1"))
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, a.Status)
	assert.Equal(t, gateway.ResultApproved, a.ResultCode)
	require.Len(t, gw.auths, 1)
	assert.Equal(t, gateway.AuthorizeRequest{PaymentID: "pay-1", CardRef: added.Card.Ref, Amount: 12_345,
		ReturnURL: "https://pay.example.jp/payments/waiting/1/creditcard"}, gw.auths[0])

	// The same payment id again is the same authorisation (the PSP answers the first).
	_, err = s.Approve(ctx, buyer, req(12_345, "pay-1"))
	require.NoError(t, err)
	assert.Equal(t, "pay-1", gw.auths[1].PaymentID)
	// …but not for another amount, nor for another buyer.
	_, err = s.Approve(ctx, buyer, req(20_000, "pay-1"))
	assert.Equal(t, cards.MsgPaymentIDReused, refusal(t, err).Message)
	otherBuyer := newBuyer(t)
	otherCard, err := newService(&fakeGateway{card: visa()}).AddCard(ctx, otherBuyer, "tok")
	require.NoError(t, err)
	_, err = s.Approve(ctx, otherBuyer, cards.ApproveRequest{CardID: otherCard.Card.ID, Amount: 12_345, PaymentID: "pay-1", ReturnURL: "/x"})
	assert.Equal(t, cards.MsgPaymentIDTaken, refusal(t, err).Message)
	// Another buyer's card is not found.
	_, err = s.Approve(ctx, otherBuyer, cards.ApproveRequest{CardID: cardID, Amount: 12_345, PaymentID: "pay-2", ReturnURL: "/x"})
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.Len(t, gw.auths, 2, "no refused request reached the PSP")

	for _, tc := range []struct {
		r     cards.ApproveRequest
		field string
	}{
		{req(999, "pay-3"), "amount"},
		{req(10_000_001, "pay-3"), "amount"},
		{req(5_000, ""), "payment_id"},
		{req(5_000, "cardcheck-9"), "payment_id"},
		{req(5_000, "支払い"), "payment_id"},
		{cards.ApproveRequest{CardID: cardID, Amount: 5_000, PaymentID: "pay-3", ReturnURL: "https://evil.example/x"}, "return_url"},
		{cards.ApproveRequest{CardID: cardID, Amount: 5_000, PaymentID: "pay-3", ReturnURL: "//evil.example/x"}, "return_url"},
		{cards.ApproveRequest{CardID: cardID, Amount: 5_000, PaymentID: "pay-3", ReturnURL: ""}, "return_url"},
	} {
		_, err := s.Approve(ctx, buyer, tc.r)
		assert.Equal(t, tc.field, refusal(t, err).Field, "%+v", tc.r)
	}
	assert.Equal(t, "お支払い金額は¥1,000から¥10,000,000までの範囲で指定してください", refusal(t, func() error {
		_, err := s.Approve(ctx, buyer, req(999, "pay-3"))
		return err
	}()).Message)

	// A decline is a refusal with the gateway's message; a challenge answers its URL.
	gw.authorize = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusDeclined, ResultCode: gateway.ResultInsufficientFunds}, nil
	}
	_, err = s.Approve(ctx, buyer, req(5_000, "pay-4"))
	r := refusal(t, err)
	assert.Equal(t, gateway.ResultInsufficientFunds, r.Code)
	assert.Equal(t, gateway.ResultMessage(gateway.ResultInsufficientFunds), r.Message)
	stored, err := db.Store.CardApproval(ctx, buyer, "pay-4")
	require.NoError(t, err)
	assert.Equal(t, "declined", stored.Status)

	gw.authorize = func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/3ds/9"}, nil
	}
	a, err = s.Approve(ctx, buyer, req(5_000, "pay-5"))
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusRequiresAction, a.Status)
	assert.Equal(t, "https://psp.example/3ds/9", a.ActionURL)

	// Timeout: looked up by the same id, never authorised under a new one.
	calls := len(gw.auths)
	gw.authorize = func(gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{}, gateway.ErrUnavailable
	}
	gw.lookup = func(id string) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: id, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved}, nil
	}
	a, err = s.Approve(ctx, buyer, req(5_000, "pay-6"))
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, a.Status)
	assert.Len(t, gw.auths, calls+1)
	assert.Equal(t, "pay-6", gw.lookups[len(gw.lookups)-1])

	// An expired card cannot be chosen.
	later := newService(gw)
	later.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, pay.Tokyo()) }
	_, err = later.Approve(ctx, buyer, req(5_000, "pay-7"))
	assert.Equal(t, cards.MsgExpiredChosen, refusal(t, err).Message)
}

func TestWebhooks(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	gw := &fakeGateway{card: visa(), authorize: func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusRequiresAction, ActionURL: "https://psp.example/3ds/3"}, nil
	}}
	s := newService(gw)
	added, err := s.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)

	var events atomic.Int64
	gw.verify = func(h http.Header, body []byte) (gateway.Event, error) {
		if h.Get("Sig") != "ok" {
			return gateway.Event{}, gateway.ErrBadSignature
		}
		events.Add(1)
		var ev struct {
			ID, Type, Payment string
		}
		require.NoError(t, json.Unmarshal(body, &ev))
		return gateway.Event{ID: ev.ID, Type: gateway.EventType(ev.Type),
			Transaction: gateway.Transaction{PaymentID: ev.Payment, Status: gateway.StatusAuthorized, ResultCode: gateway.ResultApproved}}, nil
	}
	body := []byte(`{"id":"evt_a1","type":"payment.authorized","payment":"` + added.PaymentID + `"}`)
	good := http.Header{"Sig": {"ok"}}

	assert.ErrorIs(t, s.ReceiveWebhook(ctx, http.Header{"Sig": {"forged"}}, body), cards.ErrBadWebhook)
	var stored int
	require.NoError(t, db.Store.DB.Get(&stored, `SELECT count(*) FROM psp_events WHERE event_id = 'evt_a1'`))
	assert.Zero(t, stored, "a bad signature stores nothing")
	assert.Zero(t, count(t, buyer))

	// The buyer never came back from the challenge: the webhook saves the card.
	require.NoError(t, s.ReceiveWebhook(ctx, good, body))
	assert.Equal(t, 1, count(t, buyer))
	require.NoError(t, s.ReceiveWebhook(ctx, good, body), "a redelivery is a no-op")
	require.NoError(t, db.Store.DB.Get(&stored, `SELECT count(*) FROM psp_events WHERE event_id = 'evt_a1' AND processed_at IS NOT NULL`))
	assert.Equal(t, 1, stored)
	assert.Equal(t, 1, count(t, buyer))

	// Coming back later shows the card the webhook saved, without asking the PSP.
	done, err := s.FinishCheck(ctx, buyer, added.PaymentID)
	require.NoError(t, err)
	require.NotNil(t, done.Card)
	assert.Empty(t, gw.lookups)

	// With QueueEvents the event waits for its job, enqueued with it.
	q := newService(gw)
	q.QueueEvents = true
	gw.card = visa()
	other, err := s.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	body2 := []byte(`{"id":"evt_a2","type":"payment.authorized","payment":"` + other.PaymentID + `"}`)
	require.NoError(t, q.ReceiveWebhook(ctx, good, body2))
	require.NoError(t, q.ReceiveWebhook(ctx, good, body2))
	var jobs []store.Job
	require.NoError(t, db.Store.DB.Select(&jobs, `SELECT id, kind, payload, unique_key, status, attempts, max_attempts, run_at,
		locked_by, locked_until, last_error, created_at, finished_at FROM jobs WHERE kind = $1`, cards.PSPEventJobKind))
	require.Len(t, jobs, 1, "one job however often the event comes")
	assert.Equal(t, 1, count(t, buyer), "not processed yet")
	require.NoError(t, q.RunEventJob(ctx, jobs[0].Payload))
	assert.Equal(t, 2, count(t, buyer))
	require.NoError(t, q.RunEventJob(ctx, jobs[0].Payload), "running it again changes nothing")
	assert.Equal(t, 2, count(t, buyer))
}
