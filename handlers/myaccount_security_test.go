package handlers

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

var (
	secretRe   = regexp.MustCompile(`<code id="totp-secret">([A-Z2-7 ]+)</code>`)
	recoveryRe = regexp.MustCompile(`<li><code>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})</code></li>`)
)

func chooseForm(method, password string) url.Values {
	return url.Values{"two_factor_method": {method}, "current_password": {password}}
}

func TestSecurityPageListsSignIns(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong password 1"}})
	c.signIn(u.EmailAddress)
	res := c.get("/myaccount/security")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"<caption id=\"signin-history-caption\">最近のログイン", "<th scope=\"col\">日時</th>", "<th scope=\"col\">結果</th>", "IPアドレス", "ブラウザ",
		"成功", "失敗", "127.0.0.1", "Go-http-client", "<fieldset", "<legend", `name="two_factor_method" value="none" checked`} {
		assert.Contains(t, res.body, want)
	}
	assert.Regexp(t, `\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}`, res.body, "dates in JST, Japanese style")

	other := newBuyer(t, pay.Corporation, "")
	oc := ta.client(t)
	oc.signIn(other.EmailAddress)
	ev, err := db.Store.SignInEvents(context.Background(), u.BuyerID, u.ID, 50)
	require.NoError(t, err)
	page := oc.get("/myaccount/security").body
	assert.Equal(t, 1, strings.Count(page, "成功"), "another buyer sees only their own sign-in")
	assert.Len(t, ev, 2)
}

func TestSecurityRejectsBadChoices(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.post("/myaccount/security", url.Values{"current_password": {testPassword}})
	assertFieldError(t, res, "two_factor_method", "二段階認証の方法を選択してください")
	res = c.post("/myaccount/security", chooseForm("sms", testPassword))
	assertFieldError(t, res, "two_factor_method", "二段階認証の方法を選択してください")
	res = c.post("/myaccount/security", chooseForm("\xff", ""))
	assertFieldError(t, res, "current_password", "現在のパスワードを入力してください")
	for _, m := range []string{"email", "totp"} {
		res = c.post("/myaccount/security", chooseForm(m, "wrong password 1"))
		assertFieldError(t, res, "current_password", "現在のパスワードが正しくありません")
		assert.Contains(t, res.body, `value="`+m+`" checked`, "the choice is kept")
		res = c.post("/myaccount/security", chooseForm(m, ""))
		assertFieldError(t, res, "current_password", "現在のパスワードを入力してください")
	}
	assert.Equal(t, "", loadUser(t, u).TwoFactorMethod)
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount/security/totp").StatusCode, "nothing pending")
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount/security/email").StatusCode, "nothing pending")
	assert.Empty(t, ta.mail.Messages())

	// Choosing what is already in force changes nothing.
	res = c.post("/myaccount/security", chooseForm("none", ""))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, c.get("/myaccount/security").body, "設定は変更されていません")
}

func TestAuthenticatorAppJourney(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)

	res := c.post("/myaccount/security", chooseForm("totp", testPassword))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.Equal(t, "/myaccount/security/totp", res.Header.Get("Location"))
	page := c.get("/myaccount/security/totp")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Regexp(t, `<img class="account-qr" src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="認証アプリで読み取るQRコード"`, page.body)
	m := secretRe.FindStringSubmatch(page.body)
	require.NotNil(t, m, "the key is shown for typing in")
	secret := strings.ReplaceAll(m[1], " ", "")
	require.Len(t, secret, 32)
	assert.Equal(t, "", loadUser(t, u).TwoFactorMethod, "not on before the first code")
	var data []byte
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &data, `SELECT data FROM sessions WHERE token = $1`, c.cookie("cardpay_session")))
	assert.NotContains(t, string(data), secret, "the pending secret is sealed in the session")

	code, err := totp.GenerateCode(secret, clk.Now())
	require.NoError(t, err)
	assertFieldError(t, c.post("/myaccount/security/totp", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	res = c.post("/myaccount/security/totp", url.Values{"code": {wrongCode(code)}})
	assertFieldError(t, res, "code", "確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください")
	assert.Contains(t, res.body, "data:image/png;base64,", "the QR code is shown again")
	assertFieldError(t, c.post("/myaccount/security/totp", url.Values{"code": {"12\xff456"}}), "code", "確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください")
	assert.Equal(t, "", loadUser(t, u).TwoFactorMethod)

	before := c.cookie("cardpay_session")
	res = c.post("/myaccount/security/totp", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount/security/recovery-codes", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.cookie("cardpay_session"), "the session token is renewed")
	codesPage := c.get("/myaccount/security/recovery-codes")
	require.Equal(t, http.StatusOK, codesPage.StatusCode)
	assert.Contains(t, codesPage.body, "この画面でのみ表示します")
	assert.Contains(t, codesPage.body, "安全な場所に保管してください")
	var recovery []string
	for _, m := range recoveryRe.FindAllStringSubmatch(codesPage.body, -1) {
		recovery = append(recovery, m[1])
	}
	require.Len(t, recovery, 10)
	again := c.get("/myaccount/security/recovery-codes")
	assert.Equal(t, http.StatusSeeOther, again.StatusCode, "the codes are shown once")
	assert.Equal(t, account.SecondFactorTOTP, loadUser(t, u).TwoFactorMethod)
	assert.Contains(t, c.get("/myaccount/security").body, `value="totp" checked`)
	assert.Contains(t, ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "二段階認証の設定変更")

	// Signing in now asks for the app's code; the code that turned it on is spent.
	signInTo2FA := func() *client {
		cl := ta.client(t)
		res := cl.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}})
		require.Equal(t, "/onetime-password", res.Header.Get("Location"))
		return cl
	}
	s := signInTo2FA()
	assert.Equal(t, http.StatusUnprocessableEntity, s.post("/onetime-password", url.Values{"code": {code}}).StatusCode)
	clk.Add(30 * time.Second)
	c.get("/myaccount")
	next, err := totp.GenerateCode(secret, clk.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, s.post("/onetime-password", url.Values{"code": {next}}).StatusCode)
	assert.True(t, signedInAs(t, s))
	r := signInTo2FA()
	require.Equal(t, http.StatusSeeOther, r.post("/onetime-password", url.Values{"code": {strings.ToUpper(recovery[0])}}).StatusCode,
		"a recovery code signs in")

	// Turning it off needs the password.
	assertFieldError(t, c.post("/myaccount/security", chooseForm("none", "")), "current_password", "現在のパスワードを入力してください")
	assertFieldError(t, c.post("/myaccount/security", chooseForm("none", "wrong password 1")), "current_password", "現在のパスワードが正しくありません")
	assert.Equal(t, account.SecondFactorTOTP, loadUser(t, u).TwoFactorMethod, "still on")
	before = c.cookie("cardpay_session")
	res = c.post("/myaccount/security", chooseForm("none", testPassword))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.NotEqual(t, before, c.cookie("cardpay_session"), "the session token is renewed")
	assert.Contains(t, c.get("/myaccount/security").body, "二段階認証を無効にしました")
	got := loadUser(t, u)
	assert.Equal(t, "", got.TwoFactorMethod)
	assert.Equal(t, "", got.TOTPSecretSealed)
	left, err := db.Store.UnusedRecoveryCodes(context.Background(), u.ID)
	require.NoError(t, err)
	assert.Empty(t, left)
	ta.client(t).signIn(u.EmailAddress)
}

func TestMailTwoFactorJourney(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)

	res := c.post("/myaccount/security", chooseForm("email", testPassword))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.Equal(t, "/myaccount/security/email", res.Header.Get("Location"))
	first := mailtest.Code(ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Len(t, first, 6)
	page := c.get("/myaccount/security/email")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.body, u.EmailAddress)

	assertFieldError(t, c.post("/myaccount/security/email", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	assertFieldError(t, c.post("/myaccount/security/email", url.Values{"code": {wrongCode(first)}}), "code", "確認コードが正しくありません。")
	assert.Equal(t, "", loadUser(t, u).TwoFactorMethod)

	require.Equal(t, http.StatusSeeOther, c.post("/myaccount/security/email/resend", nil).StatusCode)
	code := mailtest.Code(ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	if code != first {
		assertFieldError(t, c.post("/myaccount/security/email", url.Values{"code": {first}}), "code", "確認コードが正しくありません。")
	}
	before := c.cookie("cardpay_session")
	res = c.post("/myaccount/security/email", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount/security", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.cookie("cardpay_session"), "the session token is renewed")
	assert.Contains(t, c.get("/myaccount/security").body, "メールによる二段階認証を有効にしました")
	assert.Equal(t, account.SecondFactorEmail, loadUser(t, u).TwoFactorMethod)
	ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second) // the change notice
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount/security/email").StatusCode, "nothing pending any more")

	// Signing in now needs the mailed code.
	s := ta.client(t)
	res = s.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}})
	require.Equal(t, "/onetime-password", res.Header.Get("Location"))
	signInCode := mailtest.Code(ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Equal(t, http.StatusSeeOther, s.post("/onetime-password", url.Values{"code": {signInCode}}).StatusCode)
	assert.True(t, signedInAs(t, s))
}
