package sandbox_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/pay"
)

const hostedReturn = appOrigin + "/myaccount/creditcards/new/return"

// assertAccessiblePage checks what every sandbox page keeps: Japanese, a title, a main
// landmark, one h1, a CSP that allows no script, and a label for every input.
func assertAccessiblePage(t *testing.T, resp *http.Response, page string) {
	t.Helper()
	assert.Contains(t, page, `<html lang="ja">`)
	assert.Regexp(t, `<title>[^<]+</title>`, page)
	assert.Contains(t, page, "<main")
	assert.Equal(t, 1, strings.Count(page, "<h1>"))
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "default-src 'none'")
	assert.Contains(t, csp, "frame-ancestors 'none'")
	assert.NotContains(t, csp, "script-src")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	assert.Equal(t, "same-origin", resp.Header.Get("Referrer-Policy"))
	for _, m := range regexp.MustCompile(`<input [^>]*\sid="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		assert.Contains(t, page, `<label for="`+m[1]+`">`, "input %s has a label", m[1])
	}
	nonce := regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)
	require.NotNil(t, nonce)
	assert.Contains(t, page, `<style nonce="`+nonce[1]+`">`)
}

// input finds the input with id and answers its tag.
func input(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<input [^>]*\sid="` + id + `"[^>]*>`).FindString(page)
	require.NotEmpty(t, m, "input %s", id)
	return m
}

func TestHostedPage(t *testing.T) {
	h := newHarness(t)
	setup, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: hostedReturn + "?from=cards", Hosted: true})
	require.NoError(t, err)
	pageURL := setup.RedirectURL
	require.Equal(t, h.ts.URL+"/hosted/"+setup.ID, pageURL)
	require.Regexp(t, `^setup_[a-z2-7]{20}$`, setup.ID)

	resp, page := h.get(t, pageURL)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assertAccessiblePage(t, resp, page)
	assert.Contains(t, page, "カード情報の入力")
	for id, ac := range map[string]string{"number": "cc-number", "exp": "cc-exp", "cvc": "cc-csc", "name": "cc-name"} {
		tag := input(t, page, id)
		assert.Contains(t, tag, `autocomplete="`+ac+`"`, id)
		assert.Contains(t, tag, `aria-describedby="`+id+`-hint"`, id)
		assert.NotContains(t, tag, "aria-invalid", id)
		if id != "name" {
			assert.Contains(t, tag, `inputmode="numeric"`, id)
		}
	}
	assert.NotContains(t, page, `id="error-summary"`)
	cancel := hostedReturn + "?from=cards&amp;hosted_cancel=1"
	assert.Contains(t, page, `<a href="`+cancel+`">キャンセル</a>`)
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "form-action 'self' "+appOrigin)

	// Wrong input: 422, the form again with each message next to its field, a summary
	// linking to the fields, and the number and security code not shown again.
	resp, page = h.post(t, pageURL, url.Values{"number": {"4111 1111 1111 1112"}, "exp": {"13/30"}, "cvc": {"98"}, "name": {"TARO YAMADA"}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assertAccessiblePage(t, resp, page)
	assert.Contains(t, page, "<title>エラー: ")
	assert.Contains(t, page, `role="alert"`)
	assert.Contains(t, page, `id="error-summary" autofocus`, "focus moves to the summary, as on the app's pages")
	assert.Contains(t, page, "入力内容に誤りがあります")
	for id, msg := range map[string]string{
		"number": "カード番号が正しくありません。",
		"exp":    "MM/YY の形で入力してください",
		"cvc":    "3桁の数字で入力してください",
	} {
		tag := input(t, page, id)
		assert.Contains(t, tag, `aria-invalid="true"`, id)
		assert.Contains(t, tag, `aria-describedby="`+id+`-hint `+id+`-error"`, id)
		assert.Regexp(t, `<p class="error" id="`+id+`-error">[^<]*`+regexp.QuoteMeta(msg), page, id)
		assert.Contains(t, page, `<li><a href="#`+id+`">`, "the summary links to %s", id)
	}
	assert.NotContains(t, input(t, page, "name"), "aria-invalid")
	assert.Contains(t, input(t, page, "name"), `value="TARO YAMADA"`, "what was right is kept")
	assert.Contains(t, input(t, page, "exp"), `value="13/30"`)
	assert.Contains(t, input(t, page, "number"), `value=""`)
	assert.Contains(t, input(t, page, "cvc"), `value=""`)
	assert.NotContains(t, page, "4111 1111 1111 1112")

	resp, page = h.post(t, pageURL, url.Values{"number": {amex}, "exp": {"01/20"}, "cvc": {"123"}, "name": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Contains(t, page, "American Express はご利用いただけません。")
	assert.Contains(t, page, "有効期限が切れています。")
	assert.Contains(t, page, "カード名義を入力してください。")

	// A post from another site is refused.
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, pageURL, strings.NewReader(url.Values{"number": {visa}, "exp": {"12/39"}, "cvc": {"123"}, "name": {"A B"}}.Encode()))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://evil.test")
	cross, err := h.browser.Do(r)
	require.NoError(t, err)
	cross.Body.Close()
	assert.Equal(t, http.StatusForbidden, cross.StatusCode)

	// Right input: back to the app with the setup's id (no token in the URL), and the
	// setup then saves the card.
	resp, _ = h.post(t, pageURL, url.Values{"number": {"3530-1113-3330-0000"}, "exp": {"04 / 2031"}, "cvc": {"321"}, "name": {"hanako sato"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, hostedReturn, loc.Scheme+"://"+loc.Host+loc.Path)
	assert.Equal(t, "cards", loc.Query().Get("from"), "the app's own query stays")
	assert.Equal(t, setup.ID, loc.Query().Get("setup"))
	assert.Empty(t, loc.Query().Get("token"), "the token stays with the setup")
	assert.NotContains(t, resp.Header.Get("Location"), "tok_")
	res, err := h.client.FinishCardSetup(t.Context(), setup.ID)
	require.NoError(t, err)
	require.Equal(t, gateway.SetupSucceeded, res.Status)
	assert.False(t, res.Verified, "the sandbox's setups only tokenise")
	c := res.Card
	assert.Equal(t, gateway.Card{Ref: c.Ref, Brand: pay.BrandJCB, Last4: "0000", ExpMonth: 4, ExpYear: 2031, Holder: "HANAKO SATO", Fingerprint: c.Fingerprint}, c)

	// The setup takes one card.
	resp, page = h.get(t, pageURL)
	assert.Equal(t, http.StatusGone, resp.StatusCode)
	assert.Contains(t, page, "有効期限が切れました")
	assert.Contains(t, page, `href="`+cancel+`"`)
	resp, _ = h.post(t, pageURL, url.Values{"number": {visa}, "exp": {"12/39"}, "cvc": {"123"}, "name": {"A B"}})
	assert.Equal(t, http.StatusGone, resp.StatusCode)

	// And for 30 minutes.
	stale := h.hostedURL(t, hostedReturn)
	h.clock.Add(31 * time.Minute)
	resp, _ = h.get(t, stale)
	assert.Equal(t, http.StatusGone, resp.StatusCode)

	resp, page = h.get(t, h.ts.URL+"/hosted/setup_unknown")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, page, "ページが見つかりません")
}

// A setup (its hosted page and its fields) sends buyers back to, and talks to, the app's
// origins only.
func TestSetupReturnURL(t *testing.T) {
	h := newHarness(t)
	for _, bad := range []string{"http://evil.test/return", "/relative", "javascript:alert(1)", "", "https://app.test/return"} {
		_, err := h.client.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: bad, Hosted: true})
		assert.Error(t, err, bad)
		assert.NotErrorIs(t, err, gateway.ErrUnavailable, bad)
	}
	_ = h.hostedURL(t, hostedReturn)
}

func TestHostedCancel(t *testing.T) {
	h := newHarness(t)
	_, page := h.get(t, h.hostedURL(t, hostedReturn))
	m := regexp.MustCompile(`<a href="([^"]+)">キャンセル</a>`).FindStringSubmatch(page)
	require.NotNil(t, m)
	cancel, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	require.NoError(t, err)
	assert.Equal(t, appOrigin, cancel.Scheme+"://"+cancel.Host)
	assert.Equal(t, "1", cancel.Query().Get("hosted_cancel"))
	assert.Empty(t, cancel.Query().Get("token"))
	assert.Empty(t, cancel.Query().Get("setup"), "a cancel says nothing was entered")
}

func TestChallengePassed(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, challengeJCB, 12_345)
	require.Equal(t, gateway.StatusRequiresAction, tx.Status)
	assert.Equal(t, gateway.ResultActionRequired, tx.ResultCode)
	require.Regexp(t, `^`+regexp.QuoteMeta(h.ts.URL)+`/3ds/ch_[a-z2-7]{20}$`, tx.ActionURL)
	assert.Empty(t, h.events(t, tx.PaymentID), "nothing to announce before the challenge ends")

	resp, page := h.get(t, tx.ActionURL)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assertAccessiblePage(t, resp, page)
	assert.Contains(t, page, "本人認証（3-Dセキュア）")
	assert.Contains(t, page, "¥12,345")
	assert.Contains(t, page, "JCB •••• 0505")
	code := passcodeOn(t, page)
	tag := input(t, page, "passcode")
	assert.Contains(t, tag, `autocomplete="one-time-code"`)
	assert.Contains(t, tag, `inputmode="numeric"`)
	assert.Contains(t, page, `value="verify" class="primary">認証する</button>`)
	assert.Contains(t, page, `value="cancel" class="secondary">認証を中止</button>`)

	// Each challenge has its own page and passcode (equal by chance one time in a million).
	other := h.authorize(t, challengeVISA, 1000)
	assert.NotEqual(t, tx.ActionURL, other.ActionURL)
	_, otherPage := h.get(t, other.ActionURL)
	assert.NotEqual(t, code, passcodeOn(t, otherPage))

	resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {code}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, returnURL+"?payment_id="+url.QueryEscape(tx.PaymentID), resp.Header.Get("Location"))
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, got.Status)
	assert.Equal(t, gateway.ResultApproved, got.ResultCode)
	assert.Empty(t, got.ActionURL)
	assert.Equal(t, []string{"payment.authorized"}, h.events(t, tx.PaymentID))

	// A second post (a double click) goes back again and changes nothing; the page
	// says the challenge is over.
	resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {code}})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, page = h.get(t, tx.ActionURL)
	assert.Equal(t, http.StatusGone, resp.StatusCode)
	assert.Contains(t, page, "この本人認証は終了しています")
	assert.Len(t, h.events(t, tx.PaymentID), 1)
	// The passed challenge's authorisation can be captured.
	cap, err := h.client.Capture(t.Context(), tx.PaymentID, 12_345)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusCaptured, cap.Status)
}

func TestChallengeWrongCodeThreeTimes(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, challengeVISA, 3000)
	_, page := h.get(t, tx.ActionURL)
	code := passcodeOn(t, page)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}

	// An empty field is not an attempt.
	resp, page := h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Contains(t, page, "ワンタイムパスワードを入力してください。")

	for i, left := range []string{"あと2回", "あと1回"} {
		resp, page := h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {wrong}})
		require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "attempt %d", i+1)
		assertAccessiblePage(t, resp, page)
		assert.Contains(t, page, "ワンタイムパスワードが正しくありません。"+left+"入力できます。")
		tag := input(t, page, "passcode")
		assert.Contains(t, tag, `aria-invalid="true"`)
		assert.Contains(t, tag, `aria-describedby="passcode-hint passcode-error"`)
		assert.Contains(t, page, `<li><a href="#passcode">`)
		assert.Equal(t, code, passcodeOn(t, page), "the same passcode is shown again")
	}
	resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {wrong}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "the third wrong code ends the challenge")
	assert.Equal(t, returnURL+"?payment_id="+url.QueryEscape(tx.PaymentID), resp.Header.Get("Location"))
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusDeclined, got.Status)
	assert.Equal(t, gateway.ResultChallengeFailed, got.ResultCode)
	assert.Equal(t, []string{"payment.action_failed"}, h.events(t, tx.PaymentID))

	// The right code comes too late.
	resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {code}})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	got, _ = h.client.Lookup(t.Context(), tx.PaymentID)
	assert.Equal(t, gateway.StatusDeclined, got.Status)
}

func TestChallengeCancelled(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, challengeVISA, 3000)
	resp, _ := h.post(t, tx.ActionURL, url.Values{"action": {"cancel"}, "passcode": {""}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, returnURL+"?payment_id="+url.QueryEscape(tx.PaymentID), resp.Header.Get("Location"))
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusDeclined, got.Status)
	assert.Equal(t, gateway.ResultChallengeFailed, got.ResultCode)
	assert.Equal(t, []string{"payment.action_failed"}, h.events(t, tx.PaymentID))
}

func TestChallengeThatAlwaysFails(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, challengeFails, 3000)
	_, page := h.get(t, tx.ActionURL)
	resp, _ := h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {passcodeOn(t, page)}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.ResultChallengeFailed, got.ResultCode)
}

func TestChallengeExpires(t *testing.T) {
	h := newHarness(t)
	tx := h.authorize(t, challengeVISA, 3000)
	_, page := h.get(t, tx.ActionURL)
	code := passcodeOn(t, page)
	h.clock.Add(16 * time.Minute)
	resp, page := h.get(t, tx.ActionURL)
	assert.Equal(t, http.StatusGone, resp.StatusCode)
	assert.Contains(t, page, `href="`+returnURL+"?payment_id=")
	resp, _ = h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {code}})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusDeclined, got.Status)
	assert.Equal(t, gateway.ResultChallengeFailed, got.ResultCode)
}

// A card check (VerifyOnly) through a challenge says that nothing is charged.
func TestChallengeVerifyOnly(t *testing.T) {
	h := newHarness(t)
	c := h.saved(t, challengeVISA)
	tx, err := h.client.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: paymentID("cardcheck"), CardRef: c.Ref, VerifyOnly: true, ReturnURL: returnURL})
	require.NoError(t, err)
	require.Equal(t, gateway.StatusRequiresAction, tx.Status)
	_, page := h.get(t, tx.ActionURL)
	assert.Contains(t, page, "カードの確認のみ（ご請求はありません）")
	resp, _ := h.post(t, tx.ActionURL, url.Values{"action": {"verify"}, "passcode": {passcodeOn(t, page)}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	got, err := h.client.Lookup(t.Context(), tx.PaymentID)
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, got.Status)
	assert.Zero(t, got.Amount)
}

func TestChallengeUnknownAndCrossSite(t *testing.T) {
	h := newHarness(t)
	resp, _ := h.get(t, h.ts.URL+"/3ds/ch_unknown")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	tx := h.authorize(t, challengeVISA, 3000)
	_, page := h.get(t, tx.ActionURL)
	r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, tx.ActionURL, strings.NewReader(url.Values{"action": {"verify"}, "passcode": {passcodeOn(t, page)}}.Encode()))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://evil.test")
	cross, err := h.browser.Do(r)
	require.NoError(t, err)
	cross.Body.Close()
	assert.Equal(t, http.StatusForbidden, cross.StatusCode)
	got, _ := h.client.Lookup(t.Context(), tx.PaymentID)
	assert.Equal(t, gateway.StatusRequiresAction, got.Status)
}

// The index page lists the test cards for developers.
func TestIndexPage(t *testing.T) {
	h := newHarness(t)
	resp, page := h.get(t, h.ts.URL+"/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assertAccessiblePage(t, resp, page)
	assert.Contains(t, page, "4000 0000 0000 3220")
	assert.Contains(t, page, `<th scope="col">カード番号</th>`)
}
