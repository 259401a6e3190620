package sandbox_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/pay"
)

// Every number of the test-card table is Luhn-valid and of the brand it says, and the
// table plays every outcome the issue lists.
func TestTestCards(t *testing.T) {
	scenarios := map[sandbox.Scenario]int{}
	codes := map[gateway.ResultCode]bool{}
	for _, c := range sandbox.TestCards {
		d := c.Digits()
		assert.True(t, pay.Luhn(d), "%s is Luhn-valid", c.Number)
		assert.True(t, len(d) >= 13 && len(d) <= 19, c.Number)
		assert.Equal(t, c.Brand, pay.BrandFromNumber(d), c.Number)
		assert.Equal(t, c.Brand.Accepted(), c.Scenario != sandbox.ScenarioRefused, c.Number)
		assert.NotEmpty(t, c.Outcome)
		assert.NotEmpty(t, c.Japanese())
		scenarios[c.Scenario]++
		codes[c.Code] = true
	}
	for _, s := range []sandbox.Scenario{sandbox.ScenarioApproved, sandbox.ScenarioChallenge, sandbox.ScenarioChallengeFails, sandbox.ScenarioDecline, sandbox.ScenarioTimeout, sandbox.ScenarioRefused} {
		assert.NotZero(t, scenarios[s], s)
	}
	for _, code := range []gateway.ResultCode{gateway.ResultChallengeFailed, gateway.ResultInsufficientFunds, gateway.ResultCardRestricted,
		gateway.ResultExpiredCard, gateway.ResultSecurityCodeWrong, gateway.ResultOverLimit, gateway.ResultProcessorError, gateway.ResultBrandNotAccepted} {
		assert.True(t, codes[code], code)
	}
	assert.False(t, pay.Luhn("4111111111111112"))
	assert.False(t, pay.Luhn(""))
	assert.False(t, pay.Luhn("4111x11111111111"))
}

// Tokenisation is open to the app's origin only, preflight included.
func TestTokensCORS(t *testing.T) {
	h := newHarness(t)

	resp, out := h.postToken(t, appOrigin, h.card(visa))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, appOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Values("Vary"), "Origin")
	assert.Regexp(t, `^tok_[a-z2-7]{20}$`, out["token"])
	assert.Equal(t, "VISA", out["brand"])
	assert.Equal(t, "1111", out["last4"])
	assert.EqualValues(t, 12, out["exp_month"])
	assert.Equal(t, "TARO YAMADA", out["name"])

	for _, origin := range []string{"http://evil.test", "http://app.test:8443", "https://app.test", ""} {
		resp, _ := h.postToken(t, origin, h.card(visa))
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "origin %q", origin)
		assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "origin %q", origin)
	}

	preflight := func(origin string) *http.Response {
		r, err := http.NewRequestWithContext(t.Context(), http.MethodOptions, h.ts.URL+"/v1/tokens", nil)
		require.NoError(t, err)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "content-type")
		resp, err := h.browser.Do(r)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	ok := preflight(appOrigin)
	assert.Equal(t, http.StatusNoContent, ok.StatusCode)
	assert.Equal(t, appOrigin, ok.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "POST", ok.Header.Get("Access-Control-Allow-Methods"))
	assert.Equal(t, "Content-Type", ok.Header.Get("Access-Control-Allow-Headers"))
	assert.Empty(t, ok.Header.Get("Access-Control-Allow-Credentials"), "no cookies cross to the PSP")
	bad := preflight("http://evil.test")
	assert.Equal(t, http.StatusForbidden, bad.StatusCode)
	assert.Empty(t, bad.Header.Get("Access-Control-Allow-Origin"))
}

// What tokenisation refuses, with the field and code the island shows next to it.
func TestTokenErrors(t *testing.T) {
	h := newHarness(t)
	year := h.clock.Now().In(pay.Tokyo()).Year()
	month := int(h.clock.Now().In(pay.Tokyo()).Month())
	lastMonth, lastMonthYear := month-1, year
	if lastMonth == 0 {
		lastMonth, lastMonthYear = 12, year-1
	}
	for _, tc := range []struct {
		name  string
		edit  func(r *tokenRequest)
		code  gateway.ResultCode
		field string
		msg   string
	}{
		{"Luhn-invalid number", func(r *tokenRequest) { r.Number = "4111 1111 1111 1112" }, "G030", "number", "カード番号が正しくありません。"},
		{"short number", func(r *tokenRequest) { r.Number = "4111 1111" }, "G030", "number", "13〜19桁"},
		{"letters", func(r *tokenRequest) { r.Number = "4111 abcd 1111 1111" }, "G030", "number", "13〜19桁"},
		{"no number", func(r *tokenRequest) { r.Number = "" }, "G030", "number", "カード番号を入力してください。"},
		{"AMEX", func(r *tokenRequest) { r.Number = amex }, "G031", "number", "American Express はご利用いただけません。"},
		{"DINERS", func(r *tokenRequest) { r.Number = diners }, "G031", "number", "Diners Club はご利用いただけません。"},
		{"other brand", func(r *tokenRequest) { r.Number = "6011 1111 1111 1117" }, "G031", "number", "このカードはご利用いただけません。"},
		{"last month", func(r *tokenRequest) { r.ExpMonth, r.ExpYear = lastMonth, lastMonthYear }, "G054", "exp", "有効期限が切れています。"},
		{"month 13", func(r *tokenRequest) { r.ExpMonth = 13 }, "G054", "exp", "MM/YY"},
		{"three-digit year", func(r *tokenRequest) { r.ExpYear = 203 }, "G054", "exp", "MM/YY"},
		{"no expiry", func(r *tokenRequest) { r.ExpMonth, r.ExpYear = nil, nil }, "G054", "exp", "有効期限を入力してください。"},
		{"two-digit cvc", func(r *tokenRequest) { r.CVC = "12" }, "G044", "cvc", "3桁"},
		{"four-digit cvc", func(r *tokenRequest) { r.CVC = "1234" }, "G044", "cvc", "3桁"},
		{"no cvc", func(r *tokenRequest) { r.CVC = "" }, "G044", "cvc", "セキュリティコードを入力してください。"},
		{"no name", func(r *tokenRequest) { r.Name = " " }, "G030", "name", "カード名義を入力してください。"},
		{"kanji name", func(r *tokenRequest) { r.Name = "山田太郎" }, "G030", "name", "半角の英字"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := h.card(visa)
			tc.edit(&req)
			resp, out := h.postToken(t, appOrigin, req)
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			assert.Equal(t, appOrigin, resp.Header.Get("Access-Control-Allow-Origin"), "the island can read the error")
			e := out["error"].(map[string]any)
			assert.Equal(t, string(tc.code), e["code"])
			assert.Equal(t, tc.field, e["field"])
			assert.Contains(t, e["message"], tc.msg)
		})
	}

	// Every refused field at once, in the form's order.
	resp, out := h.postToken(t, appOrigin, tokenRequest{Number: "1234", ExpMonth: "xx", ExpYear: "", CVC: "1", Name: ""})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	var fields []string
	for _, e := range out["errors"].([]any) {
		fields = append(fields, e.(map[string]any)["field"].(string))
	}
	assert.Equal(t, []string{"number", "exp", "cvc", "name"}, fields)

	// What people type is accepted as they type it.
	for _, req := range []tokenRequest{
		{Number: "4111-1111-1111-1111", ExpMonth: "04", ExpYear: "39", CVC: "123", Name: "taro yamada"},
		{Number: "４１１１ １１１１ １１１１ １１１１", ExpMonth: 4, ExpYear: 2039, CVC: "１２３", Name: "ＴＡＲＯ　ＹＡＭＡＤＡ"},
		{Number: jcb, ExpMonth: month, ExpYear: year, CVC: "000", Name: "O'BRIEN-SMITH J."},
	} {
		resp, out := h.postToken(t, appOrigin, req)
		require.Equal(t, http.StatusCreated, resp.StatusCode, "%v", out)
		assert.Contains(t, []any{"TARO YAMADA", "O'BRIEN-SMITH J."}, out["name"])
	}
	_, out = h.postToken(t, appOrigin, tokenRequest{Number: visa, ExpMonth: "4", ExpYear: "39", CVC: "123", Name: "A B"})
	assert.EqualValues(t, 2039, out["exp_year"], "a two-digit year is 20YY")

	// Declines come at authorisation, not here: the decline cards tokenise.
	for _, n := range []string{insufficient, stolen, expiredCard, cvcWrong, overLimit, processorError, timeoutCard, challengeFails} {
		resp, _ := h.postToken(t, appOrigin, h.card(n))
		assert.Equal(t, http.StatusCreated, resp.StatusCode, n[:4])
	}

	// Not JSON.
	resp, _ = h.postToken(t, appOrigin, "number=4111")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// A token saves one card, once, within 30 minutes.
func TestTokenSingleUseAndExpiry(t *testing.T) {
	h := newHarness(t)
	tok := h.token(t, master)
	c, err := h.client.SaveCard(t.Context(), tok)
	require.NoError(t, err)
	assert.Equal(t, pay.BrandMASTER, c.Brand)
	assert.Regexp(t, `^card_`, c.Ref)
	_, err = h.client.SaveCard(t.Context(), tok)
	require.ErrorIs(t, err, gateway.ErrBadToken)

	late := h.token(t, master)
	h.clock.Add(30*time.Minute + time.Second)
	_, err = h.client.SaveCard(t.Context(), late)
	require.ErrorIs(t, err, gateway.ErrBadToken)

	fresh := h.token(t, master)
	h.clock.Add(29 * time.Minute)
	again, err := h.client.SaveCard(t.Context(), fresh)
	require.NoError(t, err)
	assert.Equal(t, c.Fingerprint, again.Fingerprint, "one number, one fingerprint")
	other := h.saved(t, visa)
	assert.NotEqual(t, c.Fingerprint, other.Fingerprint)
}

// A saved card whose expiry passes is declined G054 when authorised.
func TestCardExpiresAfterSaving(t *testing.T) {
	h := newHarness(t)
	now := h.clock.Now().In(pay.Tokyo())
	resp, out := h.postToken(t, appOrigin, tokenRequest{Number: visa, ExpMonth: int(now.Month()), ExpYear: now.Year(), CVC: "123", Name: "TARO YAMADA"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	c, err := h.client.SaveCard(t.Context(), out["token"].(string))
	require.NoError(t, err)
	h.clock.Add(32 * 24 * time.Hour)
	tx, err := h.client.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: paymentID("exp"), CardRef: c.Ref, Amount: 1000, ReturnURL: returnURL})
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusDeclined, tx.Status)
	assert.Equal(t, gateway.ResultExpiredCard, tx.ResultCode)
	assert.Equal(t, []string{"payment.declined"}, h.events(t, tx.PaymentID))
}
