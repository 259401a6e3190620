package myaccount_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/myaccount"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// passwordHash is webtest.Password hashed, for buyers made here rather than by
// webtest.NewBuyer.
var passwordHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword(webtest.Password)
	if err != nil {
		panic(err)
	}
	return h
})

func TestAccountPagesRender(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	anon := env.Client(t)
	pages := []web.Page{
		myaccount.EmailChangeCompletePage, myaccount.MyAccountPage, myaccount.CompanyPage,
		myaccount.EditPasswordPage, myaccount.EditEmailAddressPage, myaccount.SecurityPage,
		// Pages of other areas that this list covered before the split.
		{Path: "/password/sendemail", Title: "パスワード再設定メールの送信", Access: web.Public},
		{Path: "/password/reset", Title: "パスワードの再設定", Access: web.Public},
		{Path: "/termsofservice", Title: "利用規約", Access: web.SignedIn},
	}
	for _, p := range pages {
		cl := c
		if p.Access == web.Public {
			cl = anon
		}
		res := cl.Get(p.Path)
		require.Equal(t, http.StatusOK, res.StatusCode, p.Path)
		assert.Contains(t, res.Body, "<title>"+p.Title+" | 請求書カード払い</title>", p.Path)
		assert.Equal(t, 1, strings.Count(res.Body, "<h1"), p.Path)
		if p.Access == web.SignedIn {
			assert.Equal(t, http.StatusSeeOther, anon.Get(p.Path).StatusCode, "%s needs sign-in", p.Path)
		}
	}
	// Pages of a flow in progress send a visitor with nothing pending to its start.
	for path, start := range map[string]string{
		"/myaccount/edit-email-auth":         "/myaccount/edit-email-address",
		"/myaccount/security/totp":           "/myaccount/security",
		"/myaccount/security/email":          "/myaccount/security",
		"/myaccount/security/recovery-codes": "/myaccount/security",
	} {
		res := c.Get(path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, start, res.Header.Get("Location"), path)
	}
}

func TestMyAccountPage(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Get("/myaccount")
	require.Equal(t, http.StatusOK, res.StatusCode)
	// The user was created having accepted the terms in force; the page says which and
	// when (the record of the acceptance).
	accepted, err := webtest.Store().TermsAcceptance(context.Background(), u.BuyerID, u.ID, account.TermsVersion)
	require.NoError(t, err)
	termsLine := fmt.Sprintf("第%d版に同意済み（%s）", account.TermsVersion, pay.JapaneseDate(accepted.AcceptedAt))
	for _, want := range []string{u.EmailAddress, `href="/myaccount/edit-email-address"`, `href="/myaccount/edit-password"`,
		`href="/myaccount/security"`, "使用しない", termsLine, `href="/termsofservice"`} {
		assert.Contains(t, res.Body, want)
	}
	assert.NotContains(t, res.Body, webtest.Password)

	require.NoError(t, webtest.Store().AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion, time.Now()))
	require.NoError(t, webtest.Store().SetTwoFactor(context.Background(), u.BuyerID, u.ID, "email", ""))
	res = c.Get("/myaccount")
	assert.Contains(t, res.Body, termsLine, "accepting a version again keeps its first date")
	assert.Contains(t, res.Body, "メールで確認コードを受け取る")
}

func TestChangePassword(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c, other := env.Client(t), env.Client(t)
	c.SignIn(u.EmailAddress)
	other.SignIn(u.EmailAddress)
	const next = "atarashii2026pass"

	form := func(current, password, confirm string) url.Values {
		return url.Values{"current_password": {current}, "password": {password}, "password_confirmation": {confirm}}
	}
	bad := []struct {
		name  string
		form  url.Values
		field string
		msg   string
	}{
		{"wrong current password", form("wrong password 1", next, next), "current_password", "現在のパスワードが正しくありません"},
		{"no current password", form("", next, next), "current_password", "現在のパスワードを入力してください"},
		{"weak password", form(webtest.Password, "short1", "short1"), "password", "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"},
		{"common password", form(webtest.Password, "password123", "password123"), "password", "推測されやすい"},
		{"common password from the list", form(webtest.Password, "iloveyou143", "iloveyou143"), "password", "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"},
		{"common password, part in full width", form(webtest.Password, "qwertyｕｉｏｐ123", "qwertyｕｉｏｐ123"), "password", "このパスワードはよく使われていて推測されやすいため、別のパスワードを入力してください"},
		{"password with the user's address", form(webtest.Password, u.EmailAddress+"2026", u.EmailAddress+"2026"), "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"password with the local part", form(webtest.Password, strings.Split(u.EmailAddress, "@")[0]+"2026", strings.Split(u.EmailAddress, "@")[0]+"2026"), "password", "パスワードにメールアドレスの一部を含めないでください"},
		{"mismatched confirmation", form(webtest.Password, next, next+"x"), "password_confirmation", "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"},
		{"no confirmation", form(webtest.Password, next, ""), "password_confirmation", "確認のため、新しいパスワードをもう一度入力してください"},
		{"invalid UTF-8", form(webtest.Password, "abc\xff12345678", "abc\xff12345678"), "password", "パスワードに使用できない文字が含まれています"},
	}
	for _, tc := range bad {
		res := c.Post("/myaccount/edit-password", tc.form)
		webtest.AssertFieldError(t, res, tc.field, tc.msg)
		assert.NotContains(t, res.Body, next, "%s: passwords are never shown back", tc.name)
		assert.Equal(t, u.PasswordHash, webtest.ReloadUser(t, u).PasswordHash, "%s changes nothing", tc.name)
	}
	require.True(t, other.SignedIn(), "refused changes end no session")

	before := c.Cookie("cardpay_session")
	res := c.Post("/myaccount/edit-password", form(webtest.Password, next, next))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.Cookie("cardpay_session"), "the session token is renewed")
	page := c.Get("/myaccount")
	require.Equal(t, http.StatusOK, page.StatusCode, "this session stays signed in")
	assert.Contains(t, page.Body, "パスワードを変更しました")
	assert.Equal(t, http.StatusSeeOther, other.Get("/myaccount").StatusCode, "the other session ended")
	assert.Contains(t, env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "パスワード変更")

	fresh := env.Client(t)
	res = fresh.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "the old password no longer works")
	res = fresh.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {next}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the new one does")
}

func TestEmailChangeJourney(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	taken := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	newEmail := "changed-" + u.EmailAddress

	assert.Equal(t, "/myaccount/edit-email-address", c.Get("/myaccount/edit-email-auth").Header.Get("Location"),
		"no code to enter before one was asked for")
	assert.Equal(t, "/myaccount/edit-email-address",
		c.Post("/myaccount/edit-email-auth", url.Values{"code": {"123456"}}).Header.Get("Location"))

	bad := []struct {
		name, email, password, field, msg string
	}{
		{"empty", "", webtest.Password, "email_address", "メールアドレスを入力してください"},
		{"invalid", "name@example", webtest.Password, "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"invalid UTF-8", "na\xffme@example.jp", webtest.Password, "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"unchanged", strings.ToUpper(u.EmailAddress), webtest.Password, "email_address", "現在のメールアドレスと同じです。新しいメールアドレスを入力してください"},
		{"wrong password", newEmail, "wrong password 1", "current_password", "現在のパスワードが正しくありません"},
		{"no password", newEmail, "", "current_password", "現在のパスワードを入力してください"},
	}
	for _, tc := range bad {
		res := c.Post("/myaccount/edit-email-address", url.Values{"email_address": {tc.email}, "current_password": {tc.password}})
		webtest.AssertFieldError(t, res, tc.field, tc.msg)
		assert.True(t, strings.Contains(res.Body, "value=\"") && !strings.Contains(res.Body, "\xff"), "%s: shown back as valid UTF-8", tc.name)
		assert.Equal(t, u.EmailAddress, webtest.ReloadUser(t, u).EmailAddress, tc.name)
	}
	env.Settle(t)
	assert.Empty(t, env.Mail.Messages(), "refused requests mail nobody")

	// An address another account signs in with gets the same answer as a free one
	// (the page does not tell who has an account); its owner is told, and no code
	// goes out.
	res := c.Post("/myaccount/edit-email-address", url.Values{"email_address": {taken.EmailAddress}, "current_password": {webtest.Password}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/edit-email-auth", res.Header.Get("Location"))
	inUse := env.Mail.WaitFor(t, taken.EmailAddress, 5*time.Second)
	assert.Contains(t, inUse.Subject, "メールアドレス変更のお申し込みについて")
	assert.Empty(t, mailtest.Code(inUse.Text), "no code for an address in use")
	assert.Equal(t, taken.EmailAddress, webtest.ReloadUser(t, taken).EmailAddress)

	res = c.Post("/myaccount/edit-email-address", url.Values{"email_address": {newEmail}, "current_password": {webtest.Password}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/myaccount/edit-email-auth", res.Header.Get("Location"))
	code := mailtest.Code(env.Mail.WaitFor(t, newEmail, 5*time.Second).Text)
	require.Len(t, code, 6)
	page := c.Get("/myaccount/edit-email-auth")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, newEmail)
	assert.Contains(t, page.Body, `autocomplete="one-time-code"`)

	webtest.AssertFieldError(t, c.Post("/myaccount/edit-email-auth", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	webtest.AssertFieldError(t, c.Post("/myaccount/edit-email-auth", url.Values{"code": {webtest.WrongCode(code)}}), "code", "確認コードが正しくありません。")
	webtest.AssertFieldError(t, c.Post("/myaccount/edit-email-auth", url.Values{"code": {"\xff\xfe"}}), "code", "確認コードが正しくありません。")
	assert.Equal(t, u.EmailAddress, webtest.ReloadUser(t, u).EmailAddress, "wrong codes change nothing")

	before := c.Cookie("cardpay_session")
	res = c.Post("/myaccount/edit-email-auth", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/edit-email-complete", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.Cookie("cardpay_session"), "the session token is renewed")
	done := c.Get("/myaccount/edit-email-complete")
	require.Equal(t, http.StatusOK, done.StatusCode)
	assert.Contains(t, done.Body, newEmail)
	assert.Contains(t, done.Body, `href="/myaccount"`)
	assert.Contains(t, done.Body, "メールアドレスを変更しました")
	assert.Equal(t, newEmail, webtest.ReloadUser(t, u).EmailAddress)
	notice := env.Mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	assert.Contains(t, notice.Subject, "メールアドレス変更のお知らせ")
	assert.Contains(t, notice.Text, newEmail)

	// The code is spent and the change is over.
	assert.Equal(t, http.StatusSeeOther, c.Post("/myaccount/edit-email-auth", url.Values{"code": {code}}).StatusCode)

	// Anonymous, the completion page only says to sign in.
	anon := env.Client(t)
	res = anon.Get("/myaccount/edit-email-complete")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `href="/signin"`)
	assert.NotContains(t, res.Body, newEmail)

	fresh := env.Client(t)
	assert.Equal(t, http.StatusUnprocessableEntity, fresh.Post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {webtest.Password}}).StatusCode)
	fresh.SignIn(newEmail)

	// An expired code is refused.
	res = c.Post("/myaccount/edit-email-address", url.Values{"email_address": {"later-" + u.EmailAddress}, "current_password": {webtest.Password}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	late := mailtest.Code(env.Mail.WaitFor(t, "later-"+u.EmailAddress, 5*time.Second).Text)
	clk.Add(11 * time.Minute)
	c.Get("/myaccount") // stays within the idle timeout
	webtest.AssertFieldError(t, c.Post("/myaccount/edit-email-auth", url.Values{"code": {late}}), "code",
		"確認コードの有効期限が切れています。もう一度コードを送信してください。")
	assert.Equal(t, newEmail, webtest.ReloadUser(t, u).EmailAddress)
}

func TestCompanyPage(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	birthday := time.Date(1980, 4, 1, 0, 0, 0, 0, pay.Tokyo())
	mk := func(name, kana, email string) store.User {
		u, err := webtest.Store().CreateBuyer(ctx, store.NewBuyer{
			BusinessForm: pay.Corporation, EmailAddress: email, PasswordHash: passwordHash(), LastName: "山田", FirstName: "太郎",
			PhoneNumber: "0312345678", TermsVersion: account.TermsVersion,
			Details: store.BuyerDetails{
				CorporateName: name, CorporateNameKana: kana, CorporateNumber: "7000012050002", PostalCode: "1234567",
				AddressState: "東京都", AddressCity: "千代田区", AddressStreet: "千代田1-1", RepresentativeLastName: "代表",
				RepresentativeFirstName: "一郎", RepresentativeBirthday: &birthday, TransferPersonName: kana, BusinessCategory: "I",
			},
		})
		require.NoError(t, err)
		return u
	}
	a := mk("エー商事株式会社", "エーショウジ", "a-"+strings.ReplaceAll(t.Name(), "/", "_")+time.Now().Format("150405.000000")+"@test.example")
	b := mk("ビー物産株式会社", "ビーブッサン", "b-"+strings.ReplaceAll(t.Name(), "/", "_")+time.Now().Format("150405.000000")+"@test.example")
	ca, cb := env.Client(t), env.Client(t)
	ca.SignIn(a.EmailAddress)
	cb.SignIn(b.EmailAddress)

	res := ca.Get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"<dl", "エー商事株式会社", "〒123-4567", "1980年4月1日", "法人", "代表　一郎", "7000012050002", `value="山田"`, `value="エーショウジ"`} {
		assert.Contains(t, res.Body, want)
	}
	assert.NotContains(t, res.Body, "ビー物産", "A's session never shows B's company")
	assert.NotContains(t, cb.Get("/myaccount/company").Body, "エー商事")

	// The user's name.
	long := strings.Repeat("山", 51)
	badNames := []struct {
		last, first, field, msg string
	}{
		{"", "太郎", "user_last_name", "担当者の姓を入力してください"},
		{"山田", "　", "user_first_name", "担当者の名を入力してください"},
		{long, "太郎", "user_last_name", "担当者の姓は50文字以内で入力してください"},
		{"山\xff田", "太郎", "user_last_name", "担当者の姓に読み取れない文字が含まれています。入力し直してください"},
		{"山田", "太\u202e郎", "user_first_name", "担当者の名に使用できない文字が含まれています"},
		{"<script>alert(1)</script>", "太郎", "user_last_name", "担当者の姓に記号「<」「>」は使用できません"},
		{"山田", `"><img src=x onerror=alert(1)>`, "user_first_name", "担当者の名に記号「<」「>」は使用できません"},
	}
	for _, tc := range badNames {
		res := ca.Post("/myaccount/company/user-name", url.Values{"user_last_name": {tc.last}, "user_first_name": {tc.first}})
		webtest.AssertFieldError(t, res, tc.field, tc.msg)
		assert.NotContains(t, res.Body, "\xff")
		got := webtest.ReloadUser(t, a)
		assert.Equal(t, []string{"山田", "太郎"}, []string{got.LastName, got.FirstName}, "nothing changed")
	}
	res = ca.Post("/myaccount/company/user-name", url.Values{"user_last_name": {" 佐藤 "}, "user_first_name": {"花子"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"))
	got := webtest.ReloadUser(t, a)
	assert.Equal(t, []string{"佐藤", "花子"}, []string{got.LastName, got.FirstName})
	assert.Contains(t, ca.Get("/myaccount/company").Body, "担当者氏名を変更しました")
	other := webtest.ReloadUser(t, b)
	assert.Equal(t, []string{"山田", "太郎"}, []string{other.LastName, other.FirstName}, "B is untouched")

	// The transfer person name.
	badKana := []struct {
		value, msg string
	}{
		{"", "振込依頼人名（カナ）を入力してください"},
		{"山田商事", "振込依頼人名（カナ）は全角カタカナで入力してください"},
		{"ABC", "振込依頼人名（カナ）は全角カタカナで入力してください"},
		{strings.Repeat("ア", 51), "振込依頼人名（カナ）は50文字以内で入力してください"},
		{"ア\xffイ", "振込依頼人名（カナ）に読み取れない文字が含まれています。入力し直してください"},
	}
	for _, tc := range badKana {
		res := ca.Post("/myaccount/company/transfer-person-name", url.Values{"transfer_person_name": {tc.value}})
		webtest.AssertFieldError(t, res, "transfer_person_name", tc.msg)
		buyer, err := webtest.Store().Buyer(ctx, a.BuyerID)
		require.NoError(t, err)
		assert.Equal(t, "エーショウジ", buyer.TransferPersonName, "nothing changed")
	}
	res = ca.Post("/myaccount/company/transfer-person-name", url.Values{"transfer_person_name": {"えー ｼｮｳｼﾞ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	buyer, err := webtest.Store().Buyer(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "エー　ショウジ", buyer.TransferPersonName, "hiragana and half-width kana become full-width katakana")
	buyerB, err := webtest.Store().Buyer(ctx, b.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "ビーブッサン", buyerB.TransferPersonName, "B is untouched")
}

func TestCompanyPageOfASoleProprietor(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"個人事業主", "屋号", "テスト工房", "未登録"} {
		assert.Contains(t, res.Body, want)
	}
	assert.NotContains(t, res.Body, "法人番号")
}

// A change that renews the session token does not restart the 12-hour limit.
func TestChangesKeepTheAbsoluteTimeout(t *testing.T) {
	clk := webtest.NewClock(time.Now())
	env := webtest.New(t, func(d *web.Deps) { d.Clock = clk.Now })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	for elapsed := time.Duration(0); elapsed < web.AbsoluteTimeout-30*time.Minute; elapsed += 20 * time.Minute {
		clk.Add(20 * time.Minute)
		require.True(t, c.SignedIn(), "at %s", elapsed)
	}
	const next = "atarashii2026pass"
	res := c.Post("/myaccount/edit-password", url.Values{"current_password": {webtest.Password}, "password": {next}, "password_confirmation": {next}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.True(t, c.SignedIn())
	clk.Add(25 * time.Minute)
	assert.Equal(t, http.StatusSeeOther, c.Get("/myaccount").StatusCode, "12 hours after signing in the session ends all the same")
}
