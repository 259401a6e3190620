package password_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var inputValue = regexp.MustCompile(`id="email_address" name="email_address" type="email" value="([^"]*)"`)

// nonceRe finds the CSP nonce, which differs between two otherwise equal answers.
var nonceRe = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

// The request page answers the same for an address with an account and one without:
// the same redirect, then the same page but for the address typed and the nonce.
func TestPasswordResetNoEnumeration(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	const nobody = "nobody-here@test.example"
	known, unknown := env.Client(t), env.Client(t)

	r1 := known.Post("/password/sendemail", url.Values{"email_address": {u.EmailAddress}})
	r2 := unknown.Post("/password/sendemail", url.Values{"email_address": {nobody}})
	require.Equal(t, http.StatusSeeOther, r1.StatusCode)
	assert.Equal(t, r1.StatusCode, r2.StatusCode)
	assert.Equal(t, "/password/reset", r1.Header.Get("Location"))
	assert.Equal(t, r1.Header.Get("Location"), r2.Header.Get("Location"))
	assert.Equal(t, r1.Body, r2.Body)

	p1, p2 := known.Get("/password/reset"), unknown.Get("/password/reset")
	require.Equal(t, http.StatusOK, p1.StatusCode)
	assert.Equal(t, p1.StatusCode, p2.StatusCode)
	assert.Contains(t, p1.Body, "パスワード再設定用のコードを送信しました（ご登録がある場合）")
	assert.Equal(t, u.EmailAddress, inputValue.FindStringSubmatch(p1.Body)[1], "the address is filled in")
	same := func(body, email string) string {
		return nonceRe.ReplaceAllString(strings.ReplaceAll(body, email, "ADDRESS"), "NONCE")
	}
	assert.Equal(t, same(p1.Body, u.EmailAddress), same(p2.Body, nobody))

	code := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	assert.Len(t, code, 6)
	env.Settle(t)
	for _, m := range env.Mail.Messages() {
		assert.NotEqual(t, nobody, m.To, "no mail to an address without an account")
	}
}

func TestPasswordResetRequestRejectsBadInput(t *testing.T) {
	c := webtest.New(t).Client(t)
	for _, tc := range []struct{ email, msg string }{
		{"", "メールアドレスを入力してください"},
		{"   ", "メールアドレスを入力してください"},
		{"name.example.jp", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"na\xffme@example.jp", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{strings.Repeat("a", 300) + "@example.jp", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
	} {
		res := c.Post("/password/sendemail", url.Values{"email_address": {tc.email}})
		webtest.AssertFieldError(t, res, "email_address", tc.msg)
		assert.NotContains(t, res.Body, "\xff")
	}
}

func TestPasswordResetJourney(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	phone := env.Client(t)
	phone.SignIn(u.EmailAddress)
	c := env.Client(t)
	const next = "saisettei2026pass"

	require.Equal(t, http.StatusSeeOther, c.Post("/password/sendemail", url.Values{"email_address": {u.EmailAddress}}).StatusCode)
	code := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Len(t, code, 6)

	form := func(email, code, password, confirm string) url.Values {
		return url.Values{"email_address": {email}, "code": {code}, "password": {password}, "password_confirmation": {confirm}}
	}
	bad := []struct {
		name  string
		form  url.Values
		field string
		msg   string
	}{
		{"invalid e-mail", form("not-an-address", code, next, next), "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"no code", form(u.EmailAddress, "", next, next), "code", "確認コードを入力してください"},
		{"weak password", form(u.EmailAddress, code, "weakpass", "weakpass"), "password", "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"},
		{"password with the address", form(u.EmailAddress, code, strings.Split(u.EmailAddress, "@")[0]+"1", strings.Split(u.EmailAddress, "@")[0]+"1"), "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"password with the whole address", form(u.EmailAddress, code, u.EmailAddress+"1", u.EmailAddress+"1"), "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"common password", form(u.EmailAddress, code, "qwerty123456789", "qwerty123456789"), "password", "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"},
		{"common password, in capitals and full width", form(u.EmailAddress, code, "ILOVEｙｏｕ143", "ILOVEｙｏｕ143"), "password", "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"},
		{"invalid UTF-8 password", form(u.EmailAddress, code, "abcd\xff123456", "abcd\xff123456"), "password", "パスワードに使用できない文字が含まれています"},
		// With the right code: a typo in the confirmation must not use the code up.
		{"mismatched confirmation", form(u.EmailAddress, code, next, "saisettei2026pas"), "password_confirmation", "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"},
		{"wrong code", form(u.EmailAddress, webtest.WrongCode(code), next, next), "code", "確認コードが正しくありません。"},
		{"unknown address", form("nobody-at-all@test.example", code, next, next), "code", "確認コードが正しくありません。"},
	}
	for _, tc := range bad {
		res := c.Post("/password/reset", tc.form)
		webtest.AssertFieldError(t, res, tc.field, tc.msg)
		assert.NotContains(t, res.Body, next, "%s: passwords are never shown back", tc.name)
		assert.Equal(t, u.PasswordHash, webtest.ReloadUser(t, u).PasswordHash, "%s changes nothing", tc.name)
	}
	require.True(t, phone.SignedIn(), "refused resets end no session")

	res := c.Post("/password/reset", form(u.EmailAddress, code, next, next))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.Contains(t, c.Get("/signin").Body, "パスワードを再設定しました")
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount").StatusCode, "the resetting browser is not signed in")
	assert.Equal(t, http.StatusSeeOther, phone.Get("/myaccount").StatusCode, "a reset ends every other session")
	assert.Contains(t, env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "パスワード変更")

	res = c.Post("/password/reset", form(u.EmailAddress, code, "another2026pass", "another2026pass"))
	webtest.AssertFieldError(t, res, "code", "この確認コードは使用済みです。")

	res = c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "the old password no longer works")
	res = c.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {next}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the new one does")
}

func TestPasswordResetCodeExpires(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.Post("/password/sendemail", url.Values{"email_address": {u.EmailAddress}})
	code := mailtest.Code(env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	clk.Add(10*time.Minute + time.Second)
	res := c.Post("/password/reset", url.Values{"email_address": {u.EmailAddress}, "code": {code},
		"password": {"saisettei2026pass"}, "password_confirmation": {"saisettei2026pass"}})
	webtest.AssertFieldError(t, res, "code", "確認コードの有効期限が切れています。もう一度コードを送信してください。")
	assert.Equal(t, u.PasswordHash, webtest.ReloadUser(t, u).PasswordHash)
}
