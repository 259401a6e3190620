package securitysuite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/cards"
	"cardpay/gateway"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// Issue 24, abuse limits part 1: one-time codes under parallel guesses, and the card
// check (adding a card) against someone trying stolen cards.

// Sandbox test cards (README "Test cards").
const (
	stolenCard    = "4000 0000 0000 9979" // G042
	processorCard = "4000 0000 0000 0119" // G097: says nothing about the card
	approvedCard  = "4111 1111 1111 1111"
)

// TestParallelCodeGuesses fires 50 wrong codes at once at one sign-up's code, from one
// session, with the limiter off so that only the code's own attempt count stands
// between the guesses and the code: the count and its check are one statement, so 5
// entries are compared and the other 45 are refused without being compared.
func TestParallelCodeGuesses(t *testing.T) {
	env := attackEnv(t, account.Limits{})
	c := env.Client(t)
	email := fmt.Sprintf("guess-%d@abuse.example", time.Now().UnixNano()%1e9)
	code := webtest.SignUp(t, env, c, email)
	n, err := strconv.Atoi(code)
	require.NoError(t, err)

	const guesses = 50
	var (
		wg                       sync.WaitGroup
		mu                       sync.Mutex
		accepted, wrong, tooMany int
	)
	start := make(chan struct{})
	for i := range guesses {
		guess := fmt.Sprintf("%06d", (n+1+i)%1_000_000) // never the code
		wg.Go(func() {
			<-start
			res := c.Post("/signup/code", url.Values{"code": {guess}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case res.StatusCode == http.StatusSeeOther:
				accepted++
			case strings.Contains(res.Body, "認証コードが正しくありません"):
				wrong++
			case strings.Contains(res.Body, "認証コードの入力回数が上限を超えました"):
				tooMany++
			}
		})
	}
	close(start)
	wg.Wait()
	var counted int
	require.NoError(t, webtest.Store().DB.Get(&counted, `SELECT c.attempts FROM one_time_codes c
		JOIN signups s ON c.subject = s.id::text WHERE c.purpose = 'signup' AND s.email_address = $1
		ORDER BY c.id DESC LIMIT 1`, email))
	// The right code after that is refused too: the five entries are spent.
	res := c.Post("/signup/code", url.Values{"code": {code}})
	rightRefused := res.StatusCode != http.StatusSeeOther && strings.Contains(res.Body, "入力回数が上限")
	record(t, "abuse", "50 parallel code guesses (one sign-up code, limiter off)",
		fmt.Sprintf("%d counted, %d answered wrong, %d too many, %d accepted; right code then refused: %t", counted, wrong, tooMany, accepted, rightRefused),
		counted <= 5 && wrong <= 5 && accepted == 0 && wrong+tooMany == guesses && rightRefused)
}

// TestParallelSecondFactorGuesses is the same attack on the API's second factor
// (login_2auth, a mailed code): 50 wrong codes at once for one login challenge.
func TestParallelSecondFactorGuesses(t *testing.T) {
	env := attackEnv(t, account.Limits{})
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, account.SecondFactorEmail, ""))
	v := newVisitor(t, env)
	res := v.call(http.MethodPost, "/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	var ch struct {
		SessionToken string `json:"session_token"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Body), &ch))
	code := env.WaitCode(t, u.EmailAddress)
	n, err := strconv.Atoi(code)
	require.NoError(t, err)

	const guesses = 50
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted int
		statuses = map[int]int{}
	)
	start := make(chan struct{})
	for i := range guesses {
		guess := fmt.Sprintf("%06d", (n+1+i)%1_000_000)
		wg.Go(func() {
			<-start
			r := v.call(http.MethodPost, "/login_2auth", map[string]any{"session_token": ch.SessionToken, "code": guess})
			mu.Lock()
			defer mu.Unlock()
			statuses[r.StatusCode]++
			if r.StatusCode == http.StatusOK {
				accepted++
			}
		})
	}
	close(start)
	wg.Wait()
	var counted int
	require.NoError(t, webtest.Store().DB.Get(&counted, `SELECT attempts FROM one_time_codes WHERE purpose = 'signin'
		AND subject = $1 ORDER BY id DESC LIMIT 1`, strconv.FormatInt(u.ID, 10)))
	record(t, "abuse", "50 parallel second-factor guesses (API login_2auth, mailed code, limiter off)",
		fmt.Sprintf("%d counted, %d accepted (statuses %v)", counted, accepted, statuses),
		counted <= 5 && accepted == 0)
}

// cardBuyer is a signed-in buyer's browser at an IP of its own.
func cardBuyer(t *testing.T, env *webtest.Env) (store.User, *visitor) {
	t.Helper()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	v := newVisitor(t, env)
	v.signIn(u.EmailAddress)
	return u, v
}

// addCard enters number as a buyer with JavaScript does: the add page opens a card
// setup, the card goes into the PSP's fields, and the island posts the setup. A locked
// buyer's page opens no setup: the attacker posts a made-up one, which changes nothing.
func addCard(t *testing.T, env *webtest.Env, v *visitor, number string) webtest.Response {
	t.Helper()
	page := v.get("/myaccount/creditcards/new")
	if !strings.Contains(page.Body, `data-island="card-entry"`) {
		return v.form("/myaccount/creditcards/new", url.Values{"setup": {"setup_made_up"}})
	}
	entry := webtest.CardEntryOf(t, page.Body)
	env.PSP.EnterCard(t, entry.FieldsURL, number)
	return v.form(entry.Action, url.Values{"setup": {entry.Setup}})
}

func checksOf(t *testing.T, buyerID int64) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM card_checks WHERE buyer_id = $1`, buyerID))
	return n
}

// TestStolenCardsLockAddingCards: a buyer tries 100 stolen cards; after 5 declines
// adding cards is locked (page and API) without the PSP being asked again, and an
// operator of the screening role unlocks it.
func TestStolenCardsLockAddingCards(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	u, v := cardBuyer(t, env)
	declineMsg := gateway.ResultMessage(gateway.ResultCardRestricted)
	var declined, locked, other int
	for range 100 {
		res := addCard(t, env, v, stolenCard)
		// The fifth decline's page also says that adding cards is now locked.
		switch {
		case strings.Contains(res.Body, declineMsg):
			declined++
		case strings.Contains(res.Body, cards.MsgLocked):
			locked++
		default:
			other++
		}
	}
	checks := checksOf(t, u.BuyerID)
	v.login(u.EmailAddress, "")
	api := v.call(http.MethodPost, "/invoices/credit_cards", map[string]any{"token": env.PSP.CardToken(t, approvedCard)})
	apiLocked := api.StatusCode == http.StatusForbidden && strings.Contains(api.Body, `"card_check_locked"`)
	record(t, "abuse", "100 card checks with a declining (stolen) card, one buyer",
		fmt.Sprintf("%d declines read, then %d locked (%d other); %d verifications at the PSP; API: %d card_check_locked",
			declined, locked, other, checks, api.StatusCode),
		declined == cards.DeclineLimit && locked == 100-cards.DeclineLimit && checks == cards.DeclineLimit && apiLocked)

	// An operator of the screening role sees the buyer and unlocks it, with a reason.
	created, err := env.App.Account.CreateOperator(context.Background(), account.NewOperatorInput{
		EmailAddress: fmt.Sprintf("unlock-%d@ops.test.example", time.Now().UnixNano()%1e9), Name: "解除 担当",
		Password: opPassword, Roles: []string{pay.RoleScreening}, TOTPSecret: opSecret})
	require.NoError(t, err)
	op := env.Client(t)
	res := op.Post("/ops/signin", url.Values{"email_address": {created.Operator.EmailAddress}, "password": {opPassword}, "code": {opCode(t)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	listed := strings.Contains(op.Get("/ops/locks").Body, fmt.Sprintf("/ops/locks/%d/unlock", u.BuyerID))
	unlock := op.Post(fmt.Sprintf("/ops/locks/%d/unlock", u.BuyerID), url.Values{"reason": {"本人に電話で確認"}})
	var audits int
	require.NoError(t, webtest.Store().DB.Get(&audits, `SELECT count(*) FROM operator_audit WHERE object_type = 'buyer'
		AND object_id = $1 AND action = 'unlock_card_checks' AND operator_id = $2`, u.BuyerID, created.Operator.ID))
	saved := addCard(t, env, v, approvedCard)
	works := saved.StatusCode == http.StatusSeeOther && saved.Header.Get("Location") == "/myaccount/creditcards"
	record(t, "abuse", "operator (screening) unlocks the buyer → adding a card works again",
		fmt.Sprintf("listed on /ops/locks: %t; unlock %d, %d audit row; then approved card: %d %s",
			listed, unlock.StatusCode, audits, saved.StatusCode, saved.Header.Get("Location")),
		listed && unlock.StatusCode == http.StatusSeeOther && audits == 1 && works)
}

// TestCardChecksPerIP: one IP signs in as several buyers, each under the buyer's lock,
// and tries stolen cards: the IP's declines are capped for the day (card_decline.ip);
// and one buyer's checks are capped an hour even when nothing is declined.
func TestCardChecksPerIP(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	ipLimit := account.DefaultLimits[account.ActCardDecline+".ip"].N
	ip := newIP()
	var declined, tries int
	refusedAt, refusedStatus := 0, 0
	for b := 0; refusedAt == 0 && b < 10; b++ {
		u := webtest.NewBuyer(t, pay.Corporation, "")
		v := newVisitor(t, env)
		v.IP = ip
		v.signIn(u.EmailAddress)
		for range cards.DeclineLimit - 1 { // each buyer stays under its own lock
			tries++
			res := addCard(t, env, v, stolenCard)
			if res.StatusCode == http.StatusTooManyRequests {
				refusedAt, refusedStatus = tries, res.StatusCode
				break
			}
			if strings.Contains(res.Body, gateway.ResultMessage(gateway.ResultCardRestricted)) {
				declined++
			}
		}
	}
	_, fv := cardBuyer(t, env)
	other := addCard(t, env, fv, approvedCard)
	record(t, "abuse", "card checks with stolen cards from one IP, many buyers",
		fmt.Sprintf("%d declines, then %d on try %d; another IP: %d", declined, refusedStatus, refusedAt, other.StatusCode),
		declined == ipLimit && refusedAt == ipLimit+1 && other.StatusCode == http.StatusSeeOther)

	// One buyer, checks that decline nothing (processor errors): capped an hour.
	hourly := account.DefaultLimits[account.ActCardCheck+".target"].N
	_, v := cardBuyer(t, env)
	allowed := 0
	var last webtest.Response
	for range hourly + 1 {
		last = addCard(t, env, v, processorCard)
		if last.StatusCode == http.StatusTooManyRequests {
			break
		}
		allowed++
	}
	record(t, "abuse", "card checks of one buyer in an hour (no declines)",
		fmt.Sprintf("%d checks, then %d with Retry-After %q", allowed, last.StatusCode, last.Header.Get("Retry-After")),
		allowed == hourly && last.StatusCode == http.StatusTooManyRequests && last.Header.Get("Retry-After") != "")
}
