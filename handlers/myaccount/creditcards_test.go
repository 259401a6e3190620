package myaccount_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/cards"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// Test cards of the sandbox PSP (README "Test cards").
const (
	visaCard       = "4111 1111 1111 1111"
	jcbCard        = "3530 1113 3330 0000"
	masterCard     = "5555 5555 5555 4444"
	challengeCard  = "4000 0000 0000 3220"
	challengeFails = "4000 0084 0000 1629"
	timeoutCard    = "4000 0000 0000 0259"
	amexCard       = "3782 822463 10005"
)

// declineCards are the cards the PSP declines when they are verified, with their codes.
var declineCards = []struct {
	number, code string
}{
	{"4000 0000 0000 9995", "G012"}, // insufficient funds
	{"4000 0000 0000 9979", "G042"}, // stolen
	{"4000 0000 0000 0069", "G054"}, // expired
	{"4000 0000 0000 0127", "G044"}, // wrong security code
	{"5105 1051 0510 5100", "G055"}, // over the limit
	{"4000 0000 0000 0119", "G097"}, // processor error
}

// resultMessage is the buyer's message for a gateway result code.
func resultMessage(t *testing.T, code string) string {
	t.Helper()
	msg, ok := cards.ResultMessage(code)
	require.True(t, ok, code)
	return msg
}

// cardsOf reads the buyer's saved cards straight from the database.
func cardsOf(t *testing.T, buyerID int64) []store.Card {
	t.Helper()
	list, err := webtest.Store().Cards(context.Background(), buyerID)
	require.NoError(t, err)
	return list
}

// addCard enters number into the PSP's fields of a setup the add page opened, and posts
// the setup as the card-entry island does.
func addCard(t *testing.T, env *webtest.Env, c *webtest.Client, number string) webtest.Response {
	t.Helper()
	return env.PSP.AddCard(t, c, number)
}

// assertSaved checks the 303 to the list and the list's notice.
func assertSaved(t *testing.T, c *webtest.Client, res webtest.Response) webtest.Response {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/creditcards", res.Header.Get("Location"))
	list := c.Get("/myaccount/creditcards")
	require.Equal(t, http.StatusOK, list.StatusCode)
	assert.Contains(t, list.Body, "カードを登録しました")
	return list
}

// cardNumbersIn finds the Luhn-valid runs of 13 to 19 digits in text: no card number may
// reach the app's (or the sandbox's) log lines or pages.
func cardNumbersIn(text string) []string {
	var found []string
	for _, run := range regexp.MustCompile(`\d{13,19}`).FindAllString(text, -1) {
		sum := 0
		for i := range run {
			d := int(run[len(run)-1-i] - '0')
			if i%2 == 1 {
				if d *= 2; d > 9 {
					d -= 9
				}
			}
			sum += d
		}
		if sum%10 == 0 {
			found = append(found, run)
		}
	}
	return found
}

func assertNoCardNumbers(t *testing.T, text string) {
	t.Helper()
	assert.Empty(t, cardNumbersIn(text), "card numbers in the text")
}

func signedIn(t *testing.T, env *webtest.Env) (store.User, *webtest.Client) {
	t.Helper()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	return u, c
}

func TestCreditCardPages(t *testing.T) {
	env := webtest.New(t)
	_, c := signedIn(t, env)

	list := c.Get("/myaccount/creditcards")
	require.Equal(t, http.StatusOK, list.StatusCode)
	assert.Contains(t, list.Body, "<title>お支払い方法 | 請求書カード払い</title>")
	assert.Contains(t, list.Body, "登録済みのカードはまだありません")
	assert.Contains(t, list.Body, `href="/myaccount/creditcards/new"`)

	add := c.Get("/myaccount/creditcards/new")
	require.Equal(t, http.StatusOK, add.StatusCode)
	assert.Contains(t, add.Body, "<title>カードの追加 | 請求書カード払い</title>")
	// The island over the hosted-page form that works without JavaScript.
	assert.Contains(t, add.Body, `data-island="card-entry"`)
	props := regexp.MustCompile(`data-props="([^"]*)"`).FindStringSubmatch(add.Body)
	require.NotNil(t, props)
	entry := webtest.CardEntryOf(t, add.Body)
	assert.Equal(t, "sandbox", entry.PSP)
	assert.Equal(t, env.PSP.URL, entry.PSPOrigin, "the island takes messages from the PSP only")
	assert.Equal(t, env.PSP.URL+"/fields/"+entry.Setup, entry.FieldsURL, "the PSP's own fields, in a frame")
	assert.Contains(t, html.UnescapeString(props[1]), `"action":"/myaccount/creditcards/new"`)
	assert.Contains(t, html.UnescapeString(props[1]), `"acceptedBrands":["JCB","VISA","MASTER"]`)
	assert.Contains(t, add.Body, `<form method="post" action="/myaccount/creditcards/new/hosted"`)
	assert.Contains(t, add.Body, "カード情報を入力する")
	assert.NotContains(t, add.Body, `name="card_number"`, "our page has no field a card number could be typed into")

	// The CSP lets the page frame the PSP's fields and the forms end there, and nowhere
	// else; pages without card entry frame and reach nothing of the PSP.
	csp := add.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "frame-src 'self' "+env.PSP.URL+";")
	assert.Contains(t, csp, "connect-src 'self' "+env.PSP.URL+";")
	assert.Contains(t, csp, "form-action 'self' "+env.PSP.URL+";")
	assert.Regexp(t, `script-src 'self' 'nonce-[^']+';`, csp, "no script from anywhere else")
	assert.NotContains(t, csp, "unsafe-inline")
	listCSP := list.Header.Get("Content-Security-Policy")
	assert.Contains(t, listCSP, "frame-src 'self';")
	assert.Contains(t, listCSP, "connect-src 'self';")

	anon := env.Client(t)
	for _, p := range []string{"/myaccount/creditcards", "/myaccount/creditcards/new"} {
		assert.Equal(t, http.StatusSeeOther, anon.Get(p).StatusCode, "%s needs sign-in", p)
	}
}

func TestAddCardThroughTheIsland(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)

	list := assertSaved(t, c, addCard(t, env, c, visaCard))
	saved := cardsOf(t, u.BuyerID)
	require.Len(t, saved, 1)
	assert.True(t, saved[0].IsDefault)
	assert.Equal(t, pay.BrandVISA, saved[0].Brand)
	assert.Equal(t, "1111", saved[0].Last4)
	assert.Equal(t, "TARO YAMADA", saved[0].HolderName)
	assert.True(t, strings.HasPrefix(saved[0].Ref, "card_"))
	exp := fmt.Sprintf("12/%02d", (time.Now().Year()+3)%100)
	for _, want := range []string{"VISA", "下4桁 </span>1111", "有効期限 " + exp, "名義 TARO YAMADA", ">既定<"} {
		assert.Contains(t, list.Body, want)
	}
	assertNoCardNumbers(t, list.Body)

	// A setup is finished once: posting it again saves nothing and says so.
	entry := webtest.CardEntryOf(t, c.Get("/myaccount/creditcards/new").Body)
	env.PSP.EnterCard(t, entry.FieldsURL, masterCard)
	assertSaved(t, c, c.Post("/myaccount/creditcards/new", url.Values{"setup": {entry.Setup}}))
	again := c.Post("/myaccount/creditcards/new", url.Values{"setup": {entry.Setup}})
	webtest.AssertFieldError(t, again, "card", cards.MsgTokenUnusable)
	assert.Len(t, cardsOf(t, u.BuyerID), 2)
	webtest.AssertFieldError(t, c.Post("/myaccount/creditcards/new", url.Values{"setup": {""}}), "card", cards.MsgTokenUnusable)

	// A setup this session did not open (another buyer's, a made-up one) is refused
	// before the PSP is asked, and one whose fields got no card says so.
	_, stranger := signedIn(t, env)
	other := webtest.CardEntryOf(t, stranger.Get("/myaccount/creditcards/new").Body)
	env.PSP.EnterCard(t, other.FieldsURL, jcbCard)
	webtest.AssertFieldError(t, c.Post("/myaccount/creditcards/new", url.Values{"setup": {other.Setup}}), "card", cards.MsgTokenUnusable)
	empty := webtest.CardEntryOf(t, c.Get("/myaccount/creditcards/new").Body)
	webtest.AssertFieldError(t, c.Post("/myaccount/creditcards/new", url.Values{"setup": {empty.Setup}}), "card", cards.MsgTokenMissing)
	assert.Len(t, cardsOf(t, u.BuyerID), 2)
	assertNoCardNumbers(t, env.Logs())
	assert.Equal(t, []string{"4111111111111111"}, cardNumbersIn("x 4111111111111111 1234567890123"), "the check finds one")
}

func TestAddCardThroughTheHostedPage(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)

	res := c.Post("/myaccount/creditcards/new/hosted", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(page, env.PSP.URL+"/hosted/"), page)

	back := env.PSP.HostedCard(t, page, jcbCard)
	require.True(t, strings.HasPrefix(back, "/myaccount/creditcards/new/return?"), back)
	assert.Contains(t, back, "setup=setup_")
	assert.NotContains(t, back, "tok_", "no token in a URL")

	// Another browser (or a link on another site) cannot bring that token in.
	_, other := signedIn(t, env)
	stolen := other.Get(back)
	assert.Equal(t, http.StatusSeeOther, stolen.StatusCode)
	assert.Equal(t, "/myaccount/creditcards/new", stolen.Header.Get("Location"))

	assertSaved(t, c, c.Get(back))
	saved := cardsOf(t, u.BuyerID)
	require.Len(t, saved, 1)
	assert.Equal(t, pay.BrandJCB, saved[0].Brand)
	// The return works once per trip to the hosted page.
	assert.Equal(t, "/myaccount/creditcards/new", c.Get(back).Header.Get("Location"))

	// キャンセル on the hosted page comes back to the add page with nothing saved.
	res = c.Post("/myaccount/creditcards/new/hosted", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	cancel := c.Get("/myaccount/creditcards/new/return?hosted_cancel=1")
	assert.Equal(t, "/myaccount/creditcards/new", cancel.Header.Get("Location"))
	assert.Len(t, cardsOf(t, u.BuyerID), 1)
}

func TestAddCardWithAChallenge(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)

	// Passed: the card is saved when the buyer comes back.
	res := addCard(t, env, c, challengeCard)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	challenge := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(challenge, env.PSP.URL+"/3ds/"), challenge)
	assert.Empty(t, cardsOf(t, u.BuyerID), "nothing is saved before the challenge is passed")
	back := env.PSP.Challenge(t, challenge, true)
	require.True(t, strings.HasPrefix(back, "/myaccount/creditcards/verify/return?"), back)
	assertSaved(t, c, c.Get(back))
	require.Len(t, cardsOf(t, u.BuyerID), 1)
	// Reloading the return page shows the same outcome and saves nothing more.
	assert.Equal(t, http.StatusSeeOther, c.Get(back).StatusCode)
	require.Len(t, cardsOf(t, u.BuyerID), 1)

	// Another buyer's payment id is not found.
	_, other := signedIn(t, env)
	assert.Equal(t, http.StatusNotFound, other.Get(back).StatusCode)

	// Failed (the issuer refuses whatever is typed), and abandoned (認証を中止).
	for _, tc := range []struct {
		number string
		pass   bool
	}{{challengeFails, true}, {"3566 0020 2036 0505", false}} {
		res := addCard(t, env, c, tc.number)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
		back := env.PSP.Challenge(t, res.Header.Get("Location"), tc.pass)
		page := c.Get(back)
		webtest.AssertFieldError(t, page, "card", resultMessage(t, "G001"))
		assert.Contains(t, page.Body, `data-island="card-entry"`, "the add page again, to try another card")
	}
	require.Len(t, cardsOf(t, u.BuyerID), 1)
}

func TestEveryDeclineMessageIsShown(t *testing.T) {
	// Every decline in a row for one buyer: webtest's limiter is off (account.Limits{}),
	// and with it the lock that five declines set (cards' TestDeclinesLockAddingCards).
	env := webtest.New(t)
	u, c := signedIn(t, env)
	for _, d := range declineCards {
		res := addCard(t, env, c, d.number)
		webtest.AssertFieldError(t, res, "card", resultMessage(t, d.code))
	}
	assert.Empty(t, cardsOf(t, u.BuyerID))
}

// The timeout card: the PSP authorises, then answers too late. The app looks the
// verification up under the same payment id and saves the card, verified once.
func TestTimeoutCardIsLookedUpNotVerifiedTwice(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)
	assertSaved(t, c, addCard(t, env, c, timeoutCard))
	require.Len(t, cardsOf(t, u.BuyerID), 1)
	var checks []string
	require.NoError(t, webtest.Store().DB.Select(&checks, `SELECT payment_id FROM card_checks WHERE buyer_id = $1`, u.BuyerID))
	require.Len(t, checks, 1)
	var auths int
	require.NoError(t, webtest.Store().DB.Get(&auths, `SELECT count(*) FROM sandbox_authorizations WHERE payment_id = $1`, checks[0]))
	assert.Equal(t, 1, auths, "one authorisation at the PSP")
	assert.Contains(t, env.Logs(), "verification unanswered; looking it up")
	assertNoCardNumbers(t, env.Logs())
}

// The island names AMEX and Diners and refuses them before anything is sent; the PSP
// refuses to tokenise them too (G031), so no such card ever reaches the app. (Should a
// PSP hand one over anyway, the cards service refuses it by name: cards' own tests.)
func TestAMEXAndDinersAreRefusedByThePSP(t *testing.T) {
	env := webtest.New(t)
	for _, number := range []string{amexCard, "3622 720627 1667"} {
		req, err := http.NewRequest(http.MethodPost, env.PSP.URL+"/v1/tokens", strings.NewReader(
			`{"number":"`+number+`","exp_month":12,"exp_year":2030,"cvc":"1234","name":"TARO YAMADA"}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", env.URL)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, number)
		assert.Contains(t, string(body), `"code":"G031"`, number)
		assert.Equal(t, env.URL, res.Header.Get("Access-Control-Allow-Origin"), "the island can read the refusal")
	}
}

func TestDuplicateAndSixthCardAreRefused(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)
	assertSaved(t, c, addCard(t, env, c, visaCard))
	webtest.AssertFieldError(t, addCard(t, env, c, visaCard), "card", cards.MsgDuplicate)
	require.Len(t, cardsOf(t, u.BuyerID), 1)

	// Any other Luhn-valid number of an accepted brand is approved by the sandbox.
	for _, n := range []string{masterCard, jcbCard, "4242 4242 4242 4242", "5200 8282 8282 8210"} {
		assertSaved(t, c, addCard(t, env, c, n))
	}
	require.Len(t, cardsOf(t, u.BuyerID), pay.MaxSavedCards)
	list := c.Get("/myaccount/creditcards")
	assert.NotContains(t, list.Body, `href="/myaccount/creditcards/new"`, "no add button at the limit")
	assert.Contains(t, list.Body, "登録できるカードは5枚までです")
	add := c.Get("/myaccount/creditcards/new")
	assert.NotContains(t, add.Body, `data-island="card-entry"`)
	assert.Contains(t, add.Body, "登録できるカードは5枚までです")
	// A setup posted anyway (an old tab's) saves nothing.
	over := c.Post("/myaccount/creditcards/new", url.Values{"setup": {"setup_old_tab"}})
	webtest.AssertFieldError(t, over, "card", cards.MsgTokenUnusable)
	assert.Contains(t, over.Body, "登録できるカードは5枚までです")
	assert.Len(t, cardsOf(t, u.BuyerID), pay.MaxSavedCards)
}

func TestDeleteAndDefault(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)
	for _, n := range []string{visaCard, jcbCard, masterCard} {
		assertSaved(t, c, addCard(t, env, c, n))
	}
	saved := cardsOf(t, u.BuyerID)
	require.Len(t, saved, 3)
	byBrand := map[pay.CardBrand]store.Card{}
	for _, cd := range saved {
		byBrand[cd.Brand] = cd
	}
	visa, jcb, master := byBrand[pay.BrandVISA], byBrand[pay.BrandJCB], byBrand[pay.BrandMASTER]
	require.True(t, visa.IsDefault)

	// Choose the default.
	res := c.Post("/myaccount/creditcards/"+strconv.FormatInt(jcb.ID, 10)+"/default", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	list := c.Get("/myaccount/creditcards")
	assert.Contains(t, list.Body, "既定のカードを変更しました")
	assert.True(t, cardByID(t, u.BuyerID, jcb.ID).IsDefault)
	assert.False(t, cardByID(t, u.BuyerID, visa.ID).IsDefault)

	// Delete: the confirm page, いいえ goes back, はい deletes.
	path := "/myaccount/creditcards/" + strconv.FormatInt(jcb.ID, 10) + "/delete"
	confirm := c.Get(path)
	require.Equal(t, http.StatusOK, confirm.StatusCode)
	assert.Contains(t, confirm.Body, "カードを削除しますか？")
	assert.Contains(t, confirm.Body, "<span>はい</span>")
	assert.Regexp(t, `<a class="btn btn--md btn--secondary" href="/myaccount/creditcards">いいえ</a>`, confirm.Body)
	assert.Contains(t, confirm.Body, "既定のカードです")
	res = c.Post(path, nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount/creditcards", res.Header.Get("Location"))
	assert.Contains(t, c.Get("/myaccount/creditcards").Body, "カードを削除しました")
	left := cardsOf(t, u.BuyerID)
	require.Len(t, left, 2)
	assert.Equal(t, master.ID, left[0].ID, "the newest remaining card is the default")
	assert.True(t, left[0].IsDefault)
	assert.Equal(t, http.StatusNotFound, c.Get(path).StatusCode, "a deleted card is gone")
}

func cardByID(t *testing.T, buyerID, id int64) store.Card {
	t.Helper()
	cd, err := webtest.Store().Card(context.Background(), buyerID, id)
	require.NoError(t, err)
	return cd
}

func TestExpiredCardIsMarkedAndCannotBeChosen(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)
	assertSaved(t, c, addCard(t, env, c, visaCard))
	old, err := webtest.Store().CreateCard(context.Background(), u.BuyerID, store.NewCard{
		Gateway: "sandbox", Ref: "card_old", Brand: pay.BrandJCB, Last4: "0000", ExpMonth: 1, ExpYear: 2020,
		HolderName: "TARO YAMADA", Fingerprint: "fp_old",
	}, time.Now())
	require.NoError(t, err)
	id := strconv.FormatInt(old.ID, 10)

	list := c.Get("/myaccount/creditcards")
	assert.Contains(t, list.Body, "期限切れ")
	assert.Contains(t, list.Body, "有効期限 01/20")
	assert.NotContains(t, list.Body, `action="/myaccount/creditcards/`+id+`/default"`, "no button to choose it")
	assert.Contains(t, list.Body, `href="/myaccount/creditcards/`+id+`/delete"`, "but it can be deleted")

	res := c.Post("/myaccount/creditcards/"+id+"/default", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, c.Get("/myaccount/creditcards").Body, cards.MsgExpiredChosen)
	assert.False(t, cardByID(t, u.BuyerID, old.ID).IsDefault)
}

func TestAnotherBuyersCardIsNotFound(t *testing.T) {
	env := webtest.New(t)
	a, ca := signedIn(t, env)
	assertSaved(t, ca, addCard(t, env, ca, visaCard))
	assertSaved(t, ca, addCard(t, env, ca, jcbCard))
	saved := cardsOf(t, a.BuyerID)
	_, cb := signedIn(t, env)
	for _, cd := range saved {
		id := strconv.FormatInt(cd.ID, 10)
		assert.Equal(t, http.StatusNotFound, cb.Get("/myaccount/creditcards/"+id+"/delete").StatusCode)
		assert.Equal(t, http.StatusNotFound, cb.Post("/myaccount/creditcards/"+id+"/delete", nil).StatusCode)
		assert.Equal(t, http.StatusNotFound, cb.Post("/myaccount/creditcards/"+id+"/default", nil).StatusCode)
	}
	for _, p := range []string{"/myaccount/creditcards/x/delete", "/myaccount/creditcards/0/delete", "/myaccount/creditcards/verify/return",
		"/myaccount/creditcards/verify/return?payment_id=cardcheck-1"} {
		assert.Equal(t, http.StatusNotFound, cb.Get(p).StatusCode, p)
	}
	assert.NotContains(t, cb.Get("/myaccount/creditcards").Body, "1111")
	after := cardsOf(t, a.BuyerID)
	assert.Equal(t, saved, after, "nothing of A's changed")
}

func TestCardCycleSettings(t *testing.T) {
	env := webtest.New(t)
	u, c := signedIn(t, env)
	require.Equal(t, http.StatusSeeOther, addCard(t, env, c, "4111111111111111").StatusCode)
	card := cardsOf(t, u.BuyerID)[0]
	path := "/myaccount/creditcards/" + strconv.FormatInt(card.ID, 10) + "/cycle"
	page := c.Get(path)
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "締め日・支払日の設定")
	res := c.Post(path, url.Values{"closing_day": {"40"}, "months_later": {"3"}, "payment_day": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "closing_day", "締め日を選んでください")
	webtest.AssertFieldError(t, res, "months_later", "支払月（翌月・翌々月）を選んでください")
	assert.Nil(t, cardsOf(t, u.BuyerID)[0].Cycle(), "nothing saved")
	res = c.Post(path, url.Values{"closing_day": {"15"}, "months_later": {"1"}, "payment_day": {"10"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Contains(t, c.Get("/myaccount/creditcards").Body, "15日締め・翌月10日払い")
	assert.Equal(t, &pay.CardCycle{ClosingDay: 15, PaymentDay: 10, MonthsLater: 1}, cardsOf(t, u.BuyerID)[0].Cycle())
	// Another buyer's card is 404.
	_, other := signedIn(t, env)
	assert.Equal(t, http.StatusNotFound, other.Get(path).StatusCode)
	assert.Equal(t, http.StatusNotFound, other.Post(path, url.Values{"closing_day": {"1"}, "months_later": {"1"}, "payment_day": {"1"}}).StatusCode)
	res = c.Post(path, url.Values{"action": {"clear"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Nil(t, cardsOf(t, u.BuyerID)[0].Cycle())
}
