package sandbox_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/gatewaytest"
	"cardpay/gateway/sandbox"
	"cardpay/pay"
)

// contractCards maps the contract's cards to the sandbox's test numbers.
var contractCards = map[gatewaytest.Card]string{
	gatewaytest.CardVISA:              visa,
	gatewaytest.CardJCB:               jcb,
	gatewaytest.CardMASTER:            master,
	gatewaytest.CardChallenge:         challengeVISA,
	gatewaytest.CardChallengeFails:    challengeFails,
	gatewaytest.CardInsufficientFunds: insufficient,
	gatewaytest.CardStolen:            stolen,
	gatewaytest.CardExpired:           expiredCard,
	gatewaytest.CardSecurityCodeWrong: cvcWrong,
	gatewaytest.CardOverLimit:         overLimit,
	gatewaytest.CardProcessorError:    processorError,
	gatewaytest.CardTimeout:           timeoutCard,
}

// The sandbox plays every scenario of the contract table.
func TestContract(t *testing.T) {
	h := newHarness(t)
	gatewaytest.Run(t, h.client, sandboxEnv(h))
}

func sandboxEnv(h *harness) gatewaytest.Env {
	return gatewaytest.Env{
		Scenarios: gatewaytest.AllScenarios,
		Cards:     gatewaytest.AllCards,
		ReturnURL: returnURL,
		Token: func(t *testing.T, c gatewaytest.Card) (string, gateway.Card) {
			number := contractCards[c]
			require.NotEmpty(t, number, "no sandbox number for %s", c)
			req := h.card(number)
			d := sandboxDigits(number)
			return h.token(t, number), gateway.Card{
				Brand: pay.BrandFromNumber(d), Last4: d[len(d)-4:], ExpMonth: 12, ExpYear: req.ExpYear.(int), Holder: "TARO YAMADA",
			}
		},
		PassChallenge: func(t *testing.T, tx gateway.Transaction) {
			resp, page := h.get(t, tx.ActionURL)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {passcodeOn(t, page)}})
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
			assert.Equal(t, returnURL+"?payment_id="+url.QueryEscape(tx.PaymentID), resp.Header.Get("Location"))
		},
		// The buyer enters the card on the fields page (its script's POST, from the
		// sandbox's own origin) or on the hosted page (a form post, then back to the app
		// with the setup's id).
		EnterCard: func(t *testing.T, setup gateway.CardSetup, c gatewaytest.Card) gateway.Card {
			number := contractCards[c]
			require.NotEmpty(t, number, "no sandbox number for %s", c)
			req := h.card(number)
			d := sandboxDigits(number)
			if setup.RedirectURL == "" {
				status, out := h.postFields(t, setup.ID, h.ts.URL, req)
				require.Equal(t, http.StatusCreated, status, "%v", out)
			} else {
				exp := fmt.Sprintf("%02d/%d", req.ExpMonth, req.ExpYear)
				resp, _ := h.post(t, setup.RedirectURL, url.Values{"number": {number}, "exp": {exp}, "cvc": {req.CVC}, "name": {req.Name}})
				require.Equal(t, http.StatusSeeOther, resp.StatusCode)
				assert.Equal(t, returnURL+"?setup="+setup.ID, resp.Header.Get("Location"))
			}
			return gateway.Card{Brand: pay.BrandFromNumber(d), Last4: d[len(d)-4:], ExpMonth: 12, ExpYear: req.ExpYear.(int), Holder: "TARO YAMADA"}
		},
		WebhookSecret: hookSecret,
		Sign: func(body []byte, secret string, at time.Time) http.Header {
			return http.Header{sandbox.SignatureHeader: {sandbox.Sign(secret, body, at)}}
		},
		WebhookBody: func(t *testing.T) ([]byte, gateway.Event) {
			tx := h.authorize(t, visa, 1500)
			var ev struct {
				ID   string `db:"id"`
				Type string `db:"type"`
				Body string `db:"body"`
			}
			require.NoError(t, h.db.GetContext(t.Context(), &ev, `SELECT id, type, body FROM sandbox_events WHERE payment_id = $1`, tx.PaymentID))
			return []byte(ev.Body), gateway.Event{ID: ev.ID, Type: gateway.EventType(ev.Type), Transaction: gateway.Transaction{PaymentID: tx.PaymentID}}
		},
		// A charge is an authorisation the PSP announced: a second one for the same
		// payment id would be a second payment.authorized event.
		Authorizations: func(t *testing.T, paymentID string) int {
			var n int
			require.NoError(t, h.db.GetContext(t.Context(), &n, `
				SELECT count(*) FROM sandbox_events WHERE payment_id = $1 AND type = 'payment.authorized'`, paymentID))
			return n
		},
	}
}

func sandboxDigits(n string) string {
	d := ""
	for _, r := range n {
		if r >= '0' && r <= '9' {
			d += string(r)
		}
	}
	return d
}

// The sandbox's table is the whole contract table: every row runs.
func TestContractRowsAllRun(t *testing.T) {
	env := sandboxEnv(&harness{})
	names := gatewaytest.RowNames(env)
	assert.Contains(t, names, "timeout after authorisation")
	assert.Contains(t, names, "challenge passed")
	assert.Contains(t, names, "decline G012 insufficient_funds")
	assert.Contains(t, names, "card setup saves the card entered")
	assert.Contains(t, names, "card setup unknown")
	for _, d := range gatewaytest.Declines {
		assert.Contains(t, names, "decline "+string(d.Code)+" "+string(d.Card))
	}
	// A gateway that can play nothing but tokens and webhooks runs only those rows.
	few := gatewaytest.RowNames(gatewaytest.Env{Scenarios: []gatewaytest.Scenario{gatewaytest.Webhooks}, Cards: []gatewaytest.Card{gatewaytest.CardVISA}, Token: env.Token, Sign: env.Sign, WebhookBody: env.WebhookBody})
	assert.ElementsMatch(t, []string{"save card visa", "same card saved twice has one fingerprint", "webhook valid", "webhook refused", "name"}, few)
}

// Every contract card has its row in the sandbox's table with the outcome the contract
// expects.
func TestContractCardsAreTestCards(t *testing.T) {
	want := map[gatewaytest.Card]sandbox.Scenario{
		gatewaytest.CardVISA: sandbox.ScenarioApproved, gatewaytest.CardJCB: sandbox.ScenarioApproved,
		gatewaytest.CardMASTER: sandbox.ScenarioApproved, gatewaytest.CardChallenge: sandbox.ScenarioChallenge,
		gatewaytest.CardChallengeFails: sandbox.ScenarioChallengeFails, gatewaytest.CardTimeout: sandbox.ScenarioTimeout,
	}
	for _, d := range gatewaytest.Declines {
		want[d.Card] = sandbox.ScenarioDecline
	}
	for _, c := range gatewaytest.AllCards {
		var found *sandbox.TestCard
		for i := range sandbox.TestCards {
			if sandbox.TestCards[i].Number == contractCards[c] {
				found = &sandbox.TestCards[i]
			}
		}
		require.NotNil(t, found, "card %s", c)
		assert.Equal(t, want[c], found.Scenario, "card %s", c)
		for _, d := range gatewaytest.Declines {
			if d.Card == c {
				assert.Equal(t, d.Code, found.Code, "card %s", c)
			}
		}
	}
}
