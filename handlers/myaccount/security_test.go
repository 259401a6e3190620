package myaccount_test

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
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
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
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {"wrong password 1"}})
	c.SignIn(u.EmailAddress)
	res := c.Get("/myaccount/security")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"<caption id=\"signin-history-caption\">最近のログイン", "<th scope=\"col\">日時</th>", "<th scope=\"col\">結果</th>", "IPアドレス", "ブラウザ",
		"成功", "失敗", "127.0.0.1", "Go-http-client", "<fieldset", "<legend", `name="two_factor_method" value="none" checked`} {
		assert.Contains(t, res.Body, want)
	}
	assert.Regexp(t, `\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}`, res.Body, "dates in JST, Japanese style")

	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	ev, err := webtest.Store().SignInEvents(context.Background(), u.BuyerID, u.ID, 50)
	require.NoError(t, err)
	page := oc.Get("/myaccount/security").Body
	assert.Equal(t, 1, strings.Count(page, "成功"), "another buyer sees only their own sign-in")
	assert.Len(t, ev, 2)
}

func TestSecurityRejectsBadChoices(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Post("/myaccount/security", url.Values{"current_password": {webtest.Password}})
	webtest.AssertFieldError(t, res, "two_factor_method", "二段階認証の方法を選択してください")
	res = c.Post("/myaccount/security", chooseForm("sms", webtest.Password))
	webtest.AssertFieldError(t, res, "two_factor_method", "二段階認証の方法を選択してください")
	res = c.Post("/myaccount/security", chooseForm("\xff", ""))
	webtest.AssertFieldError(t, res, "current_password", "現在のパスワードを入力してください")
	for _, m := range []string{"email", "totp"} {
		res = c.Post("/myaccount/security", chooseForm(m, "wrong password 1"))
		webtest.AssertFieldError(t, res, "current_password", "現在のパスワードが正しくありません")
		assert.Contains(t, res.Body, `value="`+m+`" checked`, "the choice is kept")
		res = c.Post("/myaccount/security", chooseForm(m, ""))
		webtest.AssertFieldError(t, res, "current_password", "現在のパスワードを入力してください")
	}
	assert.Equal(t, "", webtest.ReloadUser(t, u).TwoFactorMethod)
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount/security/totp").StatusCode, "nothing pending")
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount/security/email").StatusCode, "nothing pending")
	env.Settle(t)
	assert.Empty(t, env.Mail.Messages())

	// Choosing what is already in force changes nothing.
	res = c.Post("/myaccount/security", chooseForm("none", ""))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, c.Get("/myaccount/security").Body, "設定は変更されていません")
}

func TestAuthenticatorAppJourney(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Post("/myaccount/security", chooseForm("totp", webtest.Password))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/security/totp", res.Header.Get("Location"))
	page := c.Get("/myaccount/security/totp")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Regexp(t, `<img class="account-qr" src="data:image/png;base64,[A-Za-z0-9+/=]+" alt="認証アプリで読み取るQRコード"`, page.Body)
	m := secretRe.FindStringSubmatch(page.Body)
	require.NotNil(t, m, "the key is shown for typing in")
	secret := strings.ReplaceAll(m[1], " ", "")
	require.Len(t, secret, 32)
	assert.Equal(t, "", webtest.ReloadUser(t, u).TwoFactorMethod, "not on before the first code")
	var data []byte
	require.NoError(t, webtest.Store().DB.GetContext(context.Background(), &data, `SELECT data FROM sessions WHERE token = $1`, c.Cookie("cardpay_session")))
	assert.NotContains(t, string(data), secret, "the pending secret is sealed in the session")

	code, err := totp.GenerateCode(secret, clk.Now())
	require.NoError(t, err)
	webtest.AssertFieldError(t, c.Post("/myaccount/security/totp", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	res = c.Post("/myaccount/security/totp", url.Values{"code": {webtest.WrongCode(code)}})
	webtest.AssertFieldError(t, res, "code", "確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください")
	assert.Contains(t, res.Body, "data:image/png;base64,", "the QR code is shown again")
	webtest.AssertFieldError(t, c.Post("/myaccount/security/totp", url.Values{"code": {"12\xff456"}}), "code", "確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください")
	assert.Equal(t, "", webtest.ReloadUser(t, u).TwoFactorMethod)

	before := c.Cookie("cardpay_session")
	res = c.Post("/myaccount/security/totp", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/security/recovery-codes", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.Cookie("cardpay_session"), "the session token is renewed")
	codesPage := c.Get("/myaccount/security/recovery-codes")
	require.Equal(t, http.StatusOK, codesPage.StatusCode)
	assert.Contains(t, codesPage.Body, "この画面でのみ表示します")
	assert.Contains(t, codesPage.Body, "安全な場所に保管してください")
	var recovery []string
	for _, m := range recoveryRe.FindAllStringSubmatch(codesPage.Body, -1) {
		recovery = append(recovery, m[1])
	}
	require.Len(t, recovery, 10)
	again := c.Get("/myaccount/security/recovery-codes")
	assert.Equal(t, http.StatusSeeOther, again.StatusCode, "the codes are shown once")
	assert.Equal(t, account.SecondFactorTOTP, webtest.ReloadUser(t, u).TwoFactorMethod)
	assert.Contains(t, c.Get("/myaccount/security").Body, `value="totp" checked`)
	assert.Contains(t, env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "二段階認証の設定変更")

	// Signing in now asks for the app's code; the code that turned it on is spent.
	signInTo2FA := func() *webtest.Client {
		cl := env.Client(t)
		res := cl.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
		require.Equal(t, "/onetime-password", res.Header.Get("Location"))
		return cl
	}
	s := signInTo2FA()
	assert.Equal(t, http.StatusUnprocessableEntity, s.Post("/onetime-password", url.Values{"code": {code}}).StatusCode)
	clk.Add(30 * time.Second)
	c.Get("/myaccount")
	next, err := totp.GenerateCode(secret, clk.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, s.Post("/onetime-password", url.Values{"code": {next}}).StatusCode)
	assert.True(t, s.SignedIn())
	r := signInTo2FA()
	require.Equal(t, http.StatusSeeOther, r.Post("/onetime-password", url.Values{"code": {strings.ToUpper(recovery[0])}}).StatusCode,
		"a recovery code signs in")

	// Turning it off needs the password.
	webtest.AssertFieldError(t, c.Post("/myaccount/security", chooseForm("none", "")), "current_password", "現在のパスワードを入力してください")
	webtest.AssertFieldError(t, c.Post("/myaccount/security", chooseForm("none", "wrong password 1")), "current_password", "現在のパスワードが正しくありません")
	assert.Equal(t, account.SecondFactorTOTP, webtest.ReloadUser(t, u).TwoFactorMethod, "still on")
	before = c.Cookie("cardpay_session")
	res = c.Post("/myaccount/security", chooseForm("none", webtest.Password))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.NotEqual(t, before, c.Cookie("cardpay_session"), "the session token is renewed")
	assert.Contains(t, c.Get("/myaccount/security").Body, "二段階認証を無効にしました")
	got := webtest.ReloadUser(t, u)
	assert.Equal(t, "", got.TwoFactorMethod)
	assert.Equal(t, "", got.TOTPSecretSealed)
	left, err := webtest.Store().UnusedRecoveryCodes(context.Background(), u.ID)
	require.NoError(t, err)
	assert.Empty(t, left)
	env.Client(t).SignIn(u.EmailAddress)
}

func TestMailTwoFactorJourney(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Post("/myaccount/security", chooseForm("email", webtest.Password))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/security/email", res.Header.Get("Location"))
	first := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Len(t, first, 6)
	page := c.Get("/myaccount/security/email")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, u.EmailAddress)

	webtest.AssertFieldError(t, c.Post("/myaccount/security/email", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	webtest.AssertFieldError(t, c.Post("/myaccount/security/email", url.Values{"code": {webtest.WrongCode(first)}}), "code", "確認コードが正しくありません。")
	assert.Equal(t, "", webtest.ReloadUser(t, u).TwoFactorMethod)

	require.Equal(t, http.StatusSeeOther, c.Post("/myaccount/security/email/resend", nil).StatusCode)
	code := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	if code != first {
		webtest.AssertFieldError(t, c.Post("/myaccount/security/email", url.Values{"code": {first}}), "code", "確認コードが正しくありません。")
	}
	before := c.Cookie("cardpay_session")
	res = c.Post("/myaccount/security/email", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/security", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.Cookie("cardpay_session"), "the session token is renewed")
	assert.Contains(t, c.Get("/myaccount/security").Body, "メールによる二段階認証を有効にしました")
	assert.Equal(t, account.SecondFactorEmail, webtest.ReloadUser(t, u).TwoFactorMethod)
	env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second) // the change notice
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount/security/email").StatusCode, "nothing pending any more")

	// Signing in now needs the mailed code.
	s := env.Client(t)
	res = s.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	require.Equal(t, "/onetime-password", res.Header.Get("Location"))
	signInCode := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Equal(t, http.StatusSeeOther, s.Post("/onetime-password", url.Values{"code": {signInCode}}).StatusCode)
	assert.True(t, s.SignedIn())
}
