// Package gatewaytest is the one contract table every gateway.Gateway passes: the
// sandbox PSP (gateway/sandbox) and the Stripe adapter against stripe-mock
// (gateway/stripe). A gateway's test calls
//
//	gatewaytest.Run(t, gw, gatewaytest.Env{…})
//
// Env says what differs between gateways: how to get a one-time token for a test card,
// how a buyer passes a 3-D Secure challenge, how the PSP signs a webhook, and which
// scenarios the PSP can play at all. stripe-mock, for one, answers fixtures: it cannot
// decline or remember a payment, so its Env leaves those scenarios out and their rows are
// not part of its table. That is data about the PSP, not a skipped test: a row whose
// scenario the Env declares always runs and always asserts.
package gatewaytest

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/pay"
)

// Card names a test card by what it does; each gateway maps it to its own test number
// or fixed token (the sandbox's table is in README "Test cards").
type Card string

const (
	CardVISA   Card = "visa"   // approved without a challenge
	CardJCB    Card = "jcb"    // approved without a challenge
	CardMASTER Card = "master" // approved without a challenge
	// CardChallenge asks for a 3-D Secure challenge that the shown passcode passes.
	CardChallenge Card = "challenge"
	// CardChallengeFails asks for a challenge that fails whatever is typed (G001).
	CardChallengeFails    Card = "challenge_fails"
	CardInsufficientFunds Card = "insufficient_funds" // G012
	CardStolen            Card = "stolen"             // G042
	CardExpired           Card = "expired"            // G054
	CardSecurityCodeWrong Card = "cvc_wrong"          // G044
	CardOverLimit         Card = "over_limit"         // G055
	CardProcessorError    Card = "processor_error"    // G097
	// CardTimeout is authorised by the PSP, whose answer then comes too late for the
	// client: ErrUnavailable, and Lookup finds the authorisation.
	CardTimeout Card = "timeout"
)

// Declines are the cards that authorise to a decline, with the code each must give.
var Declines = []struct {
	Card Card
	Code gateway.ResultCode
}{
	{CardInsufficientFunds, gateway.ResultInsufficientFunds},
	{CardStolen, gateway.ResultCardRestricted},
	{CardExpired, gateway.ResultExpiredCard},
	{CardSecurityCodeWrong, gateway.ResultSecurityCodeWrong},
	{CardOverLimit, gateway.ResultOverLimit},
	{CardProcessorError, gateway.ResultProcessorError},
}

// Scenario is something a PSP can play; a row runs when Env declares every scenario it
// needs (and can make a token for every card it uses).
type Scenario string

const (
	// Authorize: an approved card authorises to StatusAuthorized with the amount,
	// without a challenge (also VerifyOnly), and Lookup answers the same.
	Authorize Scenario = "authorize"
	// Lifecycle: capture (whole or part), void and refund (whole or part) answer the
	// status and amounts they moved.
	Lifecycle Scenario = "lifecycle"
	// Challenge: the challenge card answers StatusRequiresAction with an ActionURL.
	Challenge Scenario = "challenge"
	// ChallengeOutcome: Env.PassChallenge completes a challenge as the buyer would, and
	// Lookup then shows it authorised (or declined G001 for CardChallengeFails).
	ChallengeOutcome Scenario = "challenge_outcome"
	// Declines: each card in Declines authorises to StatusDeclined with its code.
	DeclineCodes Scenario = "declines"
	// States: the PSP remembers payments and tokens: what does not fit a payment's
	// state is ErrInvalidState, an unknown payment ErrNotFound, a used or unknown
	// token ErrBadToken.
	States Scenario = "states"
	// Idempotency: authorising one payment id twice answers the first authorisation.
	Idempotency Scenario = "idempotency"
	// Timeout: CardTimeout answers ErrUnavailable; Lookup and a second Authorize with
	// the same payment id find the one authorisation.
	Timeout Scenario = "timeout"
	// Webhooks: VerifyWebhook accepts Env.Sign's signature and refuses tampered,
	// wrongly keyed, stale and replayed ones.
	Webhooks Scenario = "webhooks"
	// Setup: StartCardSetup answers a setup the browser can take a card with (fields
	// to embed or a client secret, and a hosted page when asked), and FinishCardSetup
	// reads it: open before a card is entered.
	Setup Scenario = "setup"
	// SetupOutcome: Env.EnterCard completes a setup as the buyer would, and
	// FinishCardSetup then answers the saved card, the same card when asked again.
	SetupOutcome Scenario = "setup_outcome"
)

// AllScenarios is every scenario, for a PSP that plays them all (the sandbox).
var AllScenarios = []Scenario{Authorize, Lifecycle, Challenge, ChallengeOutcome, DeclineCodes, States, Idempotency, Timeout, Webhooks, Setup, SetupOutcome}

// AllCards is every test card.
var AllCards = []Card{
	CardVISA, CardJCB, CardMASTER, CardChallenge, CardChallengeFails, CardInsufficientFunds,
	CardStolen, CardExpired, CardSecurityCodeWrong, CardOverLimit, CardProcessorError, CardTimeout,
}

// Env is what differs between gateways.
type Env struct {
	// Scenarios the PSP can play; rows needing others are not part of its table.
	Scenarios []Scenario
	// Cards Token can make a token for.
	Cards []Card
	// Token returns a fresh one-time token for card c, and the details SaveCard must
	// answer for it (Brand, Last4, ExpMonth, ExpYear; Holder when not empty).
	Token func(t *testing.T, c Card) (token string, want gateway.Card)
	// PassChallenge completes the challenge of tx (StatusRequiresAction) as a buyer
	// would: open tx.ActionURL, type the passcode, submit. Needed for ChallengeOutcome.
	PassChallenge func(t *testing.T, tx gateway.Transaction)
	// Webhooks: WebhookSecret is the secret gw verifies with; Sign returns the headers
	// the PSP sends with body signed with secret at time at; WebhookBody is an event
	// body in the PSP's format and the event VerifyWebhook must decode from it (ID,
	// Type and Transaction.PaymentID are compared).
	WebhookSecret string
	Sign          func(body []byte, secret string, at time.Time) http.Header
	WebhookBody   func(t *testing.T) (body []byte, want gateway.Event)
	// Authorizations, when set, counts the authorisations the PSP holds for a payment
	// id, so the idempotency and timeout rows can check "charged once" directly as
	// well as through the amounts.
	Authorizations func(t *testing.T, paymentID string) int
	// ReturnURL is the 3-D Secure return URL sent with every Authorize; default
	// "https://app.example/return".
	ReturnURL string
	// EnterCard enters card c into setup as the buyer would (the PSP's fields or its
	// hosted page; Stripe.js confirming the SetupIntent), and answers the details
	// FinishCardSetup must then give (as Token's). Needed for SetupOutcome.
	EnterCard func(t *testing.T, setup gateway.CardSetup, c Card) gateway.Card
}

// Amount is what the table authorises, in yen.
const Amount int64 = 5000

type row struct {
	name  string
	needs []Scenario
	cards []Card
	run   func(t *testing.T, c *contract)
}

type contract struct {
	gw  gateway.Gateway
	env Env
	run string
	mu  sync.Mutex
	n   int
}

// Run runs every row of the contract table whose scenarios and cards env declares, each
// as a subtest of t. It fails when env declares nothing that lets a row run.
func Run(t *testing.T, gw gateway.Gateway, env Env) {
	t.Helper()
	if env.ReturnURL == "" {
		env.ReturnURL = "https://app.example/return"
	}
	c := &contract{gw: gw, env: env, run: randomID()}
	ran := 0
	for _, r := range rows() {
		if !c.applies(r) {
			continue
		}
		if len(r.needs)+len(r.cards) > 0 {
			ran++
		}
		t.Run(r.name, func(t *testing.T) { r.run(t, c) })
	}
	require.NotZero(t, ran, "gatewaytest: Env declares no scenario and card that make a row")
}

// RowNames lists the rows Run would run for env, for a test that pins a gateway's table.
func RowNames(env Env) []string {
	c := &contract{env: env}
	var names []string
	for _, r := range rows() {
		if c.applies(r) {
			names = append(names, r.name)
		}
	}
	return names
}

func (c *contract) applies(r row) bool {
	for _, s := range r.needs {
		if !slices.Contains(c.env.Scenarios, s) {
			return false
		}
	}
	for _, card := range r.cards {
		if !slices.Contains(c.env.Cards, card) {
			return false
		}
	}
	if slices.Contains(r.needs, ChallengeOutcome) && c.env.PassChallenge == nil {
		return false
	}
	if slices.Contains(r.needs, Webhooks) && (c.env.Sign == nil || c.env.WebhookBody == nil) {
		return false
	}
	if slices.Contains(r.needs, SetupOutcome) && c.env.EnterCard == nil {
		return false
	}
	return c.env.Token != nil || len(r.cards) == 0
}

// paymentID is a payment id unique to this run and row, so reruns against one PSP
// never meet an earlier payment.
func (c *contract) paymentID(t *testing.T) string {
	c.mu.Lock()
	c.n++
	n := c.n
	c.mu.Unlock()
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	if len(name) > 60 {
		name = name[len(name)-60:]
	}
	return fmt.Sprintf("gwt-%s-%d-%s", c.run, n, name)
}

// savedCard tokenises card and saves it.
func (c *contract) savedCard(t *testing.T, card Card) gateway.Card {
	t.Helper()
	tok, _ := c.env.Token(t, card)
	saved, err := c.gw.SaveCard(t.Context(), tok)
	require.NoError(t, err, "SaveCard(%s)", card)
	require.NotEmpty(t, saved.Ref)
	return saved
}

func (c *contract) authorize(t *testing.T, card Card, amount int64) (string, gateway.Transaction) {
	t.Helper()
	saved := c.savedCard(t, card)
	id := c.paymentID(t)
	tx, err := c.gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: id, CardRef: saved.Ref, Amount: amount, ReturnURL: c.env.ReturnURL})
	require.NoError(t, err, "Authorize(%s)", card)
	return id, tx
}

// authorized authorises Amount on an approved card and checks it is authorised.
func (c *contract) authorized(t *testing.T) string {
	t.Helper()
	id, tx := c.authorize(t, CardVISA, Amount)
	require.Equal(t, gateway.StatusAuthorized, tx.Status)
	return id
}

func (c *contract) captured(t *testing.T, amount int64) string {
	t.Helper()
	id := c.authorized(t)
	tx, err := c.gw.Capture(t.Context(), id, amount)
	require.NoError(t, err)
	require.Equal(t, gateway.StatusCaptured, tx.Status)
	return id
}

func (c *contract) lookup(t *testing.T, id string) gateway.Transaction {
	t.Helper()
	tx, err := c.gw.Lookup(t.Context(), id)
	require.NoError(t, err, "Lookup(%s)", id)
	require.Equal(t, id, tx.PaymentID)
	return tx
}

func (c *contract) count(t *testing.T, id string) {
	t.Helper()
	if c.env.Authorizations != nil {
		assert.Equal(t, 1, c.env.Authorizations(t, id), "the PSP holds one authorisation for %s", id)
	}
}

func rows() []row {
	var rs []row
	for _, card := range []Card{CardVISA, CardJCB, CardMASTER} {
		rs = append(rs, row{name: "save card " + string(card), cards: []Card{card}, run: func(t *testing.T, c *contract) {
			tok, want := c.env.Token(t, card)
			got, err := c.gw.SaveCard(t.Context(), tok)
			require.NoError(t, err)
			assert.NotEmpty(t, got.Ref, "a reusable reference")
			assert.NotEqual(t, tok, got.Ref, "the reference is not the one-time token")
			assert.Equal(t, want.Brand, got.Brand)
			assert.Equal(t, want.Last4, got.Last4)
			assert.Equal(t, want.ExpMonth, got.ExpMonth)
			assert.Equal(t, want.ExpYear, got.ExpYear)
			if want.Holder != "" {
				assert.Equal(t, want.Holder, got.Holder)
			}
			assert.NotEmpty(t, got.Fingerprint, "a fingerprint, so a buyer saves a card once")
			assert.True(t, got.Brand.Accepted(), "brand %q", got.Brand)
			assert.Len(t, got.Last4, 4)
			assert.True(t, pay.AllDigits(got.Last4), "last4 %q", got.Last4)
		}})
	}
	rs = append(rs,
		row{name: "same card saved twice has one fingerprint", cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			a, b := c.savedCard(t, CardVISA), c.savedCard(t, CardVISA)
			assert.Equal(t, a.Fingerprint, b.Fingerprint)
		}},
		row{name: "used token is refused", needs: []Scenario{States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			tok, _ := c.env.Token(t, CardVISA)
			_, err := c.gw.SaveCard(t.Context(), tok)
			require.NoError(t, err)
			_, err = c.gw.SaveCard(t.Context(), tok)
			require.ErrorIs(t, err, gateway.ErrBadToken)
		}},
		row{name: "unknown token is refused", needs: []Scenario{States}, run: func(t *testing.T, c *contract) {
			_, err := c.gw.SaveCard(t.Context(), "tok_unknown"+c.run)
			require.ErrorIs(t, err, gateway.ErrBadToken)
		}},
	)
	for _, card := range []Card{CardVISA, CardJCB, CardMASTER} {
		rs = append(rs, row{name: "authorise frictionless " + string(card), needs: []Scenario{Authorize}, cards: []Card{card}, run: func(t *testing.T, c *contract) {
			saved := c.savedCard(t, card)
			id := c.paymentID(t)
			tx, err := c.gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: id, CardRef: saved.Ref, Amount: Amount, ReturnURL: c.env.ReturnURL})
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusAuthorized, tx.Status)
			assert.Equal(t, gateway.ResultApproved, tx.ResultCode)
			assert.Equal(t, id, tx.PaymentID)
			assert.NotEmpty(t, tx.PSPRef)
			assert.Equal(t, Amount, tx.Amount)
			assert.Zero(t, tx.Captured)
			assert.Empty(t, tx.ActionURL)
			assert.Equal(t, saved.Last4, tx.Card.Last4)
			got := c.lookup(t, id)
			assert.Equal(t, gateway.StatusAuthorized, got.Status)
			assert.Equal(t, tx.PSPRef, got.PSPRef)
			assert.Equal(t, Amount, got.Amount)
		}})
	}
	rs = append(rs,
		row{name: "verify only", needs: []Scenario{Authorize}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			saved := c.savedCard(t, CardVISA)
			tx, err := c.gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: c.paymentID(t), CardRef: saved.Ref, VerifyOnly: true, ReturnURL: c.env.ReturnURL})
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusAuthorized, tx.Status)
			assert.Equal(t, gateway.ResultApproved, tx.ResultCode)
			assert.Zero(t, tx.Amount)
		}},
		row{name: "challenge", needs: []Scenario{Challenge}, cards: []Card{CardChallenge}, run: func(t *testing.T, c *contract) {
			id, tx := c.authorize(t, CardChallenge, Amount)
			assert.Equal(t, gateway.StatusRequiresAction, tx.Status)
			assert.Equal(t, gateway.ResultActionRequired, tx.ResultCode)
			assert.True(t, strings.HasPrefix(tx.ActionURL, "http"), "ActionURL %q", tx.ActionURL)
			assert.Equal(t, gateway.StatusRequiresAction, c.lookup(t, id).Status)
		}},
		row{name: "challenge passed", needs: []Scenario{Challenge, ChallengeOutcome}, cards: []Card{CardChallenge}, run: func(t *testing.T, c *contract) {
			id, tx := c.authorize(t, CardChallenge, Amount)
			require.Equal(t, gateway.StatusRequiresAction, tx.Status)
			c.env.PassChallenge(t, tx)
			got := c.lookup(t, id)
			assert.Equal(t, gateway.StatusAuthorized, got.Status)
			assert.Equal(t, gateway.ResultApproved, got.ResultCode)
			assert.Equal(t, Amount, got.Amount)
			assert.Equal(t, tx.PSPRef, got.PSPRef)
		}},
		row{name: "challenge failed", needs: []Scenario{Challenge, ChallengeOutcome}, cards: []Card{CardChallengeFails}, run: func(t *testing.T, c *contract) {
			id, tx := c.authorize(t, CardChallengeFails, Amount)
			require.Equal(t, gateway.StatusRequiresAction, tx.Status)
			c.env.PassChallenge(t, tx)
			got := c.lookup(t, id)
			assert.Equal(t, gateway.StatusDeclined, got.Status)
			assert.Equal(t, gateway.ResultChallengeFailed, got.ResultCode)
		}},
	)
	for _, d := range Declines {
		rs = append(rs, row{name: "decline " + string(d.Code) + " " + string(d.Card), needs: []Scenario{DeclineCodes}, cards: []Card{d.Card}, run: func(t *testing.T, c *contract) {
			id, tx := c.authorize(t, d.Card, Amount)
			assert.Equal(t, gateway.StatusDeclined, tx.Status)
			assert.Equal(t, d.Code, tx.ResultCode)
			assert.True(t, tx.ResultCode.IsDecline())
			assert.Equal(t, d.Code, c.lookup(t, id).ResultCode)
			// A decline is the same whether money is reserved or the card only checked.
			saved := c.savedCard(t, d.Card)
			v, err := c.gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: c.paymentID(t), CardRef: saved.Ref, VerifyOnly: true, ReturnURL: c.env.ReturnURL})
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusDeclined, v.Status)
			assert.Equal(t, d.Code, v.ResultCode)
		}})
	}
	rs = append(rs,
		row{name: "capture whole", needs: []Scenario{Authorize, Lifecycle}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			tx, err := c.gw.Capture(t.Context(), id, Amount)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusCaptured, tx.Status)
			assert.Equal(t, Amount, tx.Captured)
			assert.Equal(t, Amount, c.lookup(t, id).Captured)
		}},
		row{name: "capture part", needs: []Scenario{Authorize, Lifecycle}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			tx, err := c.gw.Capture(t.Context(), id, 3000)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusCaptured, tx.Status)
			assert.Equal(t, int64(3000), tx.Captured)
			assert.Equal(t, int64(3000), c.lookup(t, id).Captured)
		}},
		row{name: "void", needs: []Scenario{Authorize, Lifecycle}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			tx, err := c.gw.Void(t.Context(), id)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusVoided, tx.Status)
			assert.Equal(t, gateway.StatusVoided, c.lookup(t, id).Status)
		}},
		row{name: "refund whole", needs: []Scenario{Authorize, Lifecycle}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.captured(t, Amount)
			tx, err := c.gw.Refund(t.Context(), id, Amount)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusRefunded, tx.Status)
			assert.Equal(t, Amount, tx.Refunded)
			assert.Equal(t, Amount, c.lookup(t, id).Refunded)
		}},
		row{name: "refund part, then the rest", needs: []Scenario{Authorize, Lifecycle}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.captured(t, Amount)
			tx, err := c.gw.Refund(t.Context(), id, 2000)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusPartiallyRefunded, tx.Status)
			assert.Equal(t, int64(2000), tx.Refunded)
			tx, err = c.gw.Refund(t.Context(), id, Amount-2000)
			require.NoError(t, err)
			assert.Equal(t, gateway.StatusRefunded, tx.Status)
			assert.Equal(t, Amount, tx.Refunded)
		}},
		row{name: "refund more than captured", needs: []Scenario{Authorize, Lifecycle, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.captured(t, 3000)
			_, err := c.gw.Refund(t.Context(), id, 3001)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
			_, err = c.gw.Refund(t.Context(), id, 1000)
			require.NoError(t, err)
			_, err = c.gw.Refund(t.Context(), id, 2001)
			require.ErrorIs(t, err, gateway.ErrInvalidState, "refunds add up to at most the captured amount")
			assert.Equal(t, int64(1000), c.lookup(t, id).Refunded)
		}},
		row{name: "refund before capture", needs: []Scenario{Authorize, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			_, err := c.gw.Refund(t.Context(), id, 1000)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
		}},
		row{name: "capture more than authorised", needs: []Scenario{Authorize, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			_, err := c.gw.Capture(t.Context(), id, Amount+1)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
			assert.Equal(t, gateway.StatusAuthorized, c.lookup(t, id).Status)
		}},
		row{name: "capture after void", needs: []Scenario{Authorize, Lifecycle, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.authorized(t)
			_, err := c.gw.Void(t.Context(), id)
			require.NoError(t, err)
			_, err = c.gw.Capture(t.Context(), id, Amount)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
			assert.Equal(t, gateway.StatusVoided, c.lookup(t, id).Status)
		}},
		row{name: "void after capture", needs: []Scenario{Authorize, Lifecycle, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			id := c.captured(t, Amount)
			_, err := c.gw.Void(t.Context(), id)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
		}},
		row{name: "capture a decline", needs: []Scenario{DeclineCodes, States}, cards: []Card{CardInsufficientFunds}, run: func(t *testing.T, c *contract) {
			id, tx := c.authorize(t, CardInsufficientFunds, Amount)
			require.Equal(t, gateway.StatusDeclined, tx.Status)
			_, err := c.gw.Capture(t.Context(), id, Amount)
			require.ErrorIs(t, err, gateway.ErrInvalidState)
		}},
		row{name: "lookup unknown", needs: []Scenario{States}, run: func(t *testing.T, c *contract) {
			_, err := c.gw.Lookup(t.Context(), c.paymentID(t))
			require.ErrorIs(t, err, gateway.ErrNotFound)
		}},
		row{name: "capture unknown", needs: []Scenario{States}, run: func(t *testing.T, c *contract) {
			_, err := c.gw.Capture(t.Context(), c.paymentID(t), Amount)
			require.ErrorIs(t, err, gateway.ErrNotFound)
		}},
		row{name: "idempotent authorise", needs: []Scenario{Authorize, Idempotency}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			saved := c.savedCard(t, CardVISA)
			req := gateway.AuthorizeRequest{PaymentID: c.paymentID(t), CardRef: saved.Ref, Amount: Amount, ReturnURL: c.env.ReturnURL}
			first, err := c.gw.Authorize(t.Context(), req)
			require.NoError(t, err)
			second, err := c.gw.Authorize(t.Context(), req)
			require.NoError(t, err)
			assert.Equal(t, first.PSPRef, second.PSPRef)
			assert.Equal(t, gateway.StatusAuthorized, second.Status)
			assert.Equal(t, Amount, second.Amount, "charged once, not twice")
			c.count(t, req.PaymentID)
		}},
		row{name: "idempotent authorise charges once", needs: []Scenario{Authorize, Idempotency, Lifecycle, States}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			saved := c.savedCard(t, CardVISA)
			req := gateway.AuthorizeRequest{PaymentID: c.paymentID(t), CardRef: saved.Ref, Amount: Amount, ReturnURL: c.env.ReturnURL}
			for range 3 {
				_, err := c.gw.Authorize(t.Context(), req)
				require.NoError(t, err)
			}
			_, err := c.gw.Capture(t.Context(), req.PaymentID, 2*Amount)
			require.ErrorIs(t, err, gateway.ErrInvalidState, "one authorisation of Amount, not several")
			c.count(t, req.PaymentID)
		}},
		row{name: "timeout after authorisation", needs: []Scenario{Timeout}, cards: []Card{CardTimeout}, run: func(t *testing.T, c *contract) {
			saved := c.savedCard(t, CardTimeout)
			req := gateway.AuthorizeRequest{PaymentID: c.paymentID(t), CardRef: saved.Ref, Amount: Amount, ReturnURL: c.env.ReturnURL}
			_, err := c.gw.Authorize(t.Context(), req)
			require.ErrorIs(t, err, gateway.ErrUnavailable)
			found := c.lookup(t, req.PaymentID)
			assert.Equal(t, gateway.StatusAuthorized, found.Status)
			assert.Equal(t, Amount, found.Amount)
			again, err := c.gw.Authorize(t.Context(), req)
			require.NoError(t, err, "authorising again with the same payment id answers the authorisation")
			assert.Equal(t, gateway.StatusAuthorized, again.Status)
			assert.Equal(t, found.PSPRef, again.PSPRef)
			c.count(t, req.PaymentID)
		}},
		row{name: "webhook valid", needs: []Scenario{Webhooks}, run: func(t *testing.T, c *contract) {
			body, want := c.env.WebhookBody(t)
			now := time.Now()
			ev, err := c.gw.VerifyWebhook(c.env.Sign(body, c.env.WebhookSecret, now), body, now)
			require.NoError(t, err)
			assert.Equal(t, want.ID, ev.ID)
			assert.Equal(t, want.Type, ev.Type)
			assert.Equal(t, want.Transaction.PaymentID, ev.Transaction.PaymentID)
			// A redelivery is signed afresh and keeps its id.
			later := now.Add(time.Minute)
			ev2, err := c.gw.VerifyWebhook(c.env.Sign(body, c.env.WebhookSecret, later), body, later)
			require.NoError(t, err)
			assert.Equal(t, ev.ID, ev2.ID)
		}},
		row{name: "webhook refused", needs: []Scenario{Webhooks}, run: func(t *testing.T, c *contract) {
			body, _ := c.env.WebhookBody(t)
			now := time.Now()
			tampered := []byte(strings.Replace(string(body), `"`, `" `, 1))
			require.NotEqual(t, body, tampered)
			for _, tc := range []struct {
				name   string
				header http.Header
				body   []byte
				at     time.Time
			}{
				{"tampered body", c.env.Sign(body, c.env.WebhookSecret, now), tampered, now},
				{"wrong secret", c.env.Sign(body, c.env.WebhookSecret+"x", now), body, now},
				{"stale timestamp", c.env.Sign(body, c.env.WebhookSecret, now.Add(-gateway.WebhookTolerance-time.Minute)), body, now},
				{"replayed later", c.env.Sign(body, c.env.WebhookSecret, now), body, now.Add(gateway.WebhookTolerance + time.Second)},
				{"from the future", c.env.Sign(body, c.env.WebhookSecret, now.Add(gateway.WebhookTolerance+time.Minute)), body, now},
				{"no signature", http.Header{}, body, now},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := c.gw.VerifyWebhook(tc.header, tc.body, tc.at)
					require.ErrorIs(t, err, gateway.ErrBadSignature)
				})
			}
		}},
		row{name: "card setup for fields", needs: []Scenario{Setup}, run: func(t *testing.T, c *contract) {
			s, err := c.gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: c.env.ReturnURL})
			require.NoError(t, err)
			assert.NotEmpty(t, s.ID)
			assert.True(t, s.FieldsURL != "" || s.ClientSecret != "", "fields to embed or a client secret for the PSP's script")
			if s.FieldsURL != "" {
				assertAbsolute(t, s.FieldsURL)
			}
			assert.Empty(t, s.RedirectURL, "no hosted page unless asked")
			got, err := c.gw.FinishCardSetup(t.Context(), s.ID)
			require.NoError(t, err)
			assert.Equal(t, gateway.SetupOpen, got.Status, "open until a card is entered")
			assert.Empty(t, got.Card.Ref)
		}},
		row{name: "card setup on the hosted page", needs: []Scenario{Setup}, run: func(t *testing.T, c *contract) {
			s, err := c.gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: c.env.ReturnURL, Hosted: true})
			require.NoError(t, err)
			assert.NotEmpty(t, s.ID)
			assertAbsolute(t, s.RedirectURL)
			got, err := c.gw.FinishCardSetup(t.Context(), s.ID)
			require.NoError(t, err)
			assert.Equal(t, gateway.SetupOpen, got.Status, "open until a card is entered")
		}},
		row{name: "card setup unknown", needs: []Scenario{Setup, States}, run: func(t *testing.T, c *contract) {
			_, err := c.gw.FinishCardSetup(t.Context(), "setup_unknown"+c.run)
			require.ErrorIs(t, err, gateway.ErrNotFound)
		}},
		row{name: "card setup saves the card entered", needs: []Scenario{Setup, SetupOutcome}, cards: []Card{CardVISA}, run: func(t *testing.T, c *contract) {
			for _, hosted := range []bool{false, true} {
				s, err := c.gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: c.env.ReturnURL, Hosted: hosted})
				require.NoError(t, err)
				want := c.env.EnterCard(t, s, CardVISA)
				got, err := c.gw.FinishCardSetup(t.Context(), s.ID)
				require.NoError(t, err)
				require.Equal(t, gateway.SetupSucceeded, got.Status, "hosted %v", hosted)
				assert.NotEmpty(t, got.Card.Ref)
				assert.Equal(t, want.Brand, got.Card.Brand)
				assert.Equal(t, want.Last4, got.Card.Last4)
				assert.Equal(t, want.ExpMonth, got.Card.ExpMonth)
				assert.Equal(t, want.ExpYear, got.Card.ExpYear)
				assert.NotEmpty(t, got.Card.Fingerprint)
				again, err := c.gw.FinishCardSetup(t.Context(), s.ID)
				require.NoError(t, err, "finishing twice answers the same card")
				assert.Equal(t, got.Card.Ref, again.Card.Ref)
				// The card is usable like a saved token's.
				id := c.paymentID(t)
				tx, err := c.gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: id, CardRef: got.Card.Ref, VerifyOnly: true, ReturnURL: c.env.ReturnURL})
				require.NoError(t, err)
				assert.Equal(t, gateway.StatusAuthorized, tx.Status)
			}
		}},
		row{name: "name", run: func(t *testing.T, c *contract) {
			assert.NotEmpty(t, c.gw.Name())
		}},
	)
	return rs
}

// randomID is a short random run id in lower-case base32: letters and the digits 2–7,
// so no id ever holds a long run of digits that a card-number scan would flag.
func assertAbsolute(t *testing.T, raw string) {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	assert.Contains(t, []string{"http", "https"}, u.Scheme, "%q is an absolute http(s) URL", raw)
	assert.NotEmpty(t, u.Host, "%q", raw)
}

func randomID() string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
