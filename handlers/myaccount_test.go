package handlers

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

// assertFieldError checks the validation-failure page (DESIGN.md §2): 422, the エラー：
// title, the summary linking to the field, and msg inline under the field.
func assertFieldError(t *testing.T, res response, field, msg string) {
	t.Helper()
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "%s: %s", field, msg)
	assert.Regexp(t, `<title>エラー：`, res.body)
	assert.Contains(t, res.body, `href="#`+field+`"`, "the error summary links to #%s", field)
	inline := regexp.MustCompile(`id="` + regexp.QuoteMeta(field) + `-error"[^>]*>(?s:.*?)</span>[^<]*` + regexp.QuoteMeta(html.EscapeString(msg)))
	assert.Regexp(t, inline, res.body, "inline message under #%s", field)
}

// loadUser reads u again from the database.
func loadUser(t *testing.T, u store.User) store.User {
	t.Helper()
	got, err := db.Store.User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	return got
}

func signedInAs(t *testing.T, c *client) bool {
	t.Helper()
	return c.get("/myaccount").StatusCode == http.StatusOK
}

var inputValue = regexp.MustCompile(`id="email_address" name="email_address" type="email" value="([^"]*)"`)

func TestAccountPagesRender(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	anon := ta.client(t)
	for _, p := range accountPages() {
		cl := c
		if p.Access == "public" {
			cl = anon
		}
		res := cl.get(p.Path)
		require.Equal(t, http.StatusOK, res.StatusCode, p.Path)
		assert.Contains(t, res.body, "<title>"+p.Title+" | 請求書カード払い</title>", p.Path)
		assert.Equal(t, 1, strings.Count(res.body, "<h1"), p.Path)
		if p.Access == "signed_in" {
			assert.Equal(t, http.StatusSeeOther, anon.get(p.Path).StatusCode, "%s needs sign-in", p.Path)
		}
	}
	// Pages of a flow in progress send a visitor with nothing pending to its start.
	for path, start := range map[string]string{
		"/myaccount/edit-email-auth":         "/myaccount/edit-email-address",
		"/myaccount/security/totp":           "/myaccount/security",
		"/myaccount/security/email":          "/myaccount/security",
		"/myaccount/security/recovery-codes": "/myaccount/security",
	} {
		res := c.get(path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, path)
		assert.Equal(t, start, res.Header.Get("Location"), path)
	}
}

func TestMyAccountPage(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.get("/myaccount")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{u.EmailAddress, `href="/myaccount/edit-email-address"`, `href="/myaccount/edit-password"`,
		`href="/myaccount/security"`, "使用しない", "第1版に同意済み", `href="/termsofservice"`} {
		assert.Contains(t, res.body, want)
	}
	assert.NotContains(t, res.body, testPassword)

	require.NoError(t, db.Store.AcceptTerms(context.Background(), u.BuyerID, u.ID, account.TermsVersion))
	require.NoError(t, db.Store.SetTwoFactor(context.Background(), u.BuyerID, u.ID, "email", ""))
	res = c.get("/myaccount")
	assert.Contains(t, res.body, "第1版に同意済み")
	assert.Contains(t, res.body, "メールで確認コードを受け取る")
}

func TestChangePassword(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c, other := ta.client(t), ta.client(t)
	c.signIn(u.EmailAddress)
	other.signIn(u.EmailAddress)
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
		{"weak password", form(testPassword, "short1", "short1"), "password", "パスワードは10文字以上で、英字と数字を組み合わせて入力してください"},
		{"common password", form(testPassword, "password123", "password123"), "password", "推測されやすい"},
		{"mismatched confirmation", form(testPassword, next, next+"x"), "password_confirmation", "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"},
		{"no confirmation", form(testPassword, next, ""), "password_confirmation", "確認のため、新しいパスワードをもう一度入力してください"},
		{"invalid UTF-8", form(testPassword, "abc\xff12345678", "abc\xff12345678"), "password", "パスワードに使用できない文字が含まれています"},
	}
	for _, tc := range bad {
		res := c.post("/myaccount/edit-password", tc.form)
		assertFieldError(t, res, tc.field, tc.msg)
		assert.NotContains(t, res.body, next, "%s: passwords are never shown back", tc.name)
		assert.Equal(t, u.PasswordHash, loadUser(t, u).PasswordHash, "%s changes nothing", tc.name)
	}
	require.True(t, signedInAs(t, other), "refused changes end no session")

	before := c.cookie("cardpay_session")
	res := c.post("/myaccount/edit-password", form(testPassword, next, next))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.cookie("cardpay_session"), "the session token is renewed")
	page := c.get("/myaccount")
	require.Equal(t, http.StatusOK, page.StatusCode, "this session stays signed in")
	assert.Contains(t, page.body, "パスワードを変更しました")
	assert.Equal(t, http.StatusSeeOther, other.get("/myaccount").StatusCode, "the other session ended")
	assert.Contains(t, ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second).Subject, "パスワード変更")

	fresh := ta.client(t)
	res = fresh.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "the old password no longer works")
	res = fresh.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {next}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the new one does")
}

func TestEmailChangeJourney(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	taken := newBuyer(t, pay.SoleProprietor, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	newEmail := "changed-" + u.EmailAddress

	assert.Equal(t, "/myaccount/edit-email-address", c.get("/myaccount/edit-email-auth").Header.Get("Location"),
		"no code to enter before one was asked for")
	assert.Equal(t, "/myaccount/edit-email-address",
		c.post("/myaccount/edit-email-auth", url.Values{"code": {"123456"}}).Header.Get("Location"))

	bad := []struct {
		name, email, password, field, msg string
	}{
		{"empty", "", testPassword, "email_address", "メールアドレスを入力してください"},
		{"invalid", "name@example", testPassword, "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"invalid UTF-8", "na\xffme@example.jp", testPassword, "email_address", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）"},
		{"unchanged", strings.ToUpper(u.EmailAddress), testPassword, "email_address", "現在のメールアドレスと同じです。新しいメールアドレスを入力してください"},
		{"already used", taken.EmailAddress, testPassword, "email_address", "このメールアドレスは既に使用されています。別のメールアドレスを入力してください"},
		{"wrong password", newEmail, "wrong password 1", "current_password", "現在のパスワードが正しくありません"},
		{"no password", newEmail, "", "current_password", "現在のパスワードを入力してください"},
	}
	for _, tc := range bad {
		res := c.post("/myaccount/edit-email-address", url.Values{"email_address": {tc.email}, "current_password": {tc.password}})
		assertFieldError(t, res, tc.field, tc.msg)
		assert.True(t, strings.Contains(res.body, "value=\"") && !strings.Contains(res.body, "\xff"), "%s: shown back as valid UTF-8", tc.name)
		assert.Equal(t, u.EmailAddress, loadUser(t, u).EmailAddress, tc.name)
	}
	assert.Empty(t, ta.mail.Messages(), "refused requests mail nobody")

	res := c.post("/myaccount/edit-email-address", url.Values{"email_address": {newEmail}, "current_password": {testPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.Equal(t, "/myaccount/edit-email-auth", res.Header.Get("Location"))
	code := mailtest.Code(ta.mail.WaitFor(t, newEmail, 5*time.Second).Text)
	require.Len(t, code, 6)
	page := c.get("/myaccount/edit-email-auth")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.body, newEmail)
	assert.Contains(t, page.body, `autocomplete="one-time-code"`)

	assertFieldError(t, c.post("/myaccount/edit-email-auth", url.Values{"code": {""}}), "code", "確認コードを入力してください")
	assertFieldError(t, c.post("/myaccount/edit-email-auth", url.Values{"code": {wrongCode(code)}}), "code", "確認コードが正しくありません。")
	assertFieldError(t, c.post("/myaccount/edit-email-auth", url.Values{"code": {"\xff\xfe"}}), "code", "確認コードが正しくありません。")
	assert.Equal(t, u.EmailAddress, loadUser(t, u).EmailAddress, "wrong codes change nothing")

	before := c.cookie("cardpay_session")
	res = c.post("/myaccount/edit-email-auth", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount/edit-email-complete", res.Header.Get("Location"))
	assert.NotEqual(t, before, c.cookie("cardpay_session"), "the session token is renewed")
	done := c.get("/myaccount/edit-email-complete")
	require.Equal(t, http.StatusOK, done.StatusCode)
	assert.Contains(t, done.body, newEmail)
	assert.Contains(t, done.body, `href="/myaccount"`)
	assert.Contains(t, done.body, "メールアドレスを変更しました")
	assert.Equal(t, newEmail, loadUser(t, u).EmailAddress)
	notice := ta.mail.WaitFor(t, u.EmailAddress, 5*time.Second)
	assert.Contains(t, notice.Subject, "メールアドレス変更のお知らせ")
	assert.Contains(t, notice.Text, newEmail)

	// The code is spent and the change is over.
	assert.Equal(t, http.StatusSeeOther, c.post("/myaccount/edit-email-auth", url.Values{"code": {code}}).StatusCode)

	// Anonymous, the completion page only says to sign in.
	anon := ta.client(t)
	res = anon.get("/myaccount/edit-email-complete")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, `href="/signin"`)
	assert.NotContains(t, res.body, newEmail)

	fresh := ta.client(t)
	assert.Equal(t, http.StatusUnprocessableEntity, fresh.post("/signin", url.Values{"email_address": {u.EmailAddress}, "password": {testPassword}}).StatusCode)
	fresh.signIn(newEmail)

	// An expired code is refused.
	res = c.post("/myaccount/edit-email-address", url.Values{"email_address": {"later-" + u.EmailAddress}, "current_password": {testPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	late := mailtest.Code(ta.mail.WaitFor(t, "later-"+u.EmailAddress, 5*time.Second).Text)
	clk.Add(11 * time.Minute)
	c.get("/myaccount") // stays within the idle timeout
	assertFieldError(t, c.post("/myaccount/edit-email-auth", url.Values{"code": {late}}), "code",
		"確認コードの有効期限が切れています。もう一度コードを送信してください。")
	assert.Equal(t, newEmail, loadUser(t, u).EmailAddress)
}

func TestCompanyPage(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t)
	birthday := time.Date(1980, 4, 1, 0, 0, 0, 0, pay.Tokyo())
	mk := func(name, kana, email string) store.User {
		u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
			BusinessForm: pay.Corporation, EmailAddress: email, PasswordHash: testHash, LastName: "山田", FirstName: "太郎",
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
	ca, cb := ta.client(t), ta.client(t)
	ca.signIn(a.EmailAddress)
	cb.signIn(b.EmailAddress)

	res := ca.get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"<dl", "エー商事株式会社", "〒123-4567", "1980年4月1日", "法人", "代表　一郎", "7000012050002", `value="山田"`, `value="エーショウジ"`} {
		assert.Contains(t, res.body, want)
	}
	assert.NotContains(t, res.body, "ビー物産", "A's session never shows B's company")
	assert.NotContains(t, cb.get("/myaccount/company").body, "エー商事")

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
	}
	for _, tc := range badNames {
		res := ca.post("/myaccount/company/user-name", url.Values{"user_last_name": {tc.last}, "user_first_name": {tc.first}})
		assertFieldError(t, res, tc.field, tc.msg)
		assert.NotContains(t, res.body, "\xff")
		got := loadUser(t, a)
		assert.Equal(t, []string{"山田", "太郎"}, []string{got.LastName, got.FirstName}, "nothing changed")
	}
	res = ca.post("/myaccount/company/user-name", url.Values{"user_last_name": {" 佐藤 "}, "user_first_name": {"花子"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	assert.Equal(t, "/myaccount/company", res.Header.Get("Location"))
	got := loadUser(t, a)
	assert.Equal(t, []string{"佐藤", "花子"}, []string{got.LastName, got.FirstName})
	assert.Contains(t, ca.get("/myaccount/company").body, "担当者氏名を変更しました")
	other := loadUser(t, b)
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
		res := ca.post("/myaccount/company/transfer-person-name", url.Values{"transfer_person_name": {tc.value}})
		assertFieldError(t, res, "transfer_person_name", tc.msg)
		buyer, err := db.Store.Buyer(ctx, a.BuyerID)
		require.NoError(t, err)
		assert.Equal(t, "エーショウジ", buyer.TransferPersonName, "nothing changed")
	}
	res = ca.post("/myaccount/company/transfer-person-name", url.Values{"transfer_person_name": {"えー ｼｮｳｼﾞ"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	buyer, err := db.Store.Buyer(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "エー　ショウジ", buyer.TransferPersonName, "hiragana and half-width kana become full-width katakana")
	buyerB, err := db.Store.Buyer(ctx, b.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "ビーブッサン", buyerB.TransferPersonName, "B is untouched")
}

func TestCompanyPageOfASoleProprietor(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.SoleProprietor, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.get("/myaccount/company")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, want := range []string{"個人事業主", "屋号", "テスト工房", "未登録"} {
		assert.Contains(t, res.body, want)
	}
	assert.NotContains(t, res.body, "法人番号")
}

// A change that renews the session token does not restart the 12-hour limit.
func TestChangesKeepTheAbsoluteTimeout(t *testing.T) {
	clk := &clock{t: time.Now()}
	ta := newTestApp(t, func(o *Options) { o.Now = clk.Now })
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	for elapsed := time.Duration(0); elapsed < AbsoluteTimeout-30*time.Minute; elapsed += 20 * time.Minute {
		clk.Add(20 * time.Minute)
		require.True(t, signedInAs(t, c), "at %s", elapsed)
	}
	const next = "atarashii2026pass"
	res := c.post("/myaccount/edit-password", url.Values{"current_password": {testPassword}, "password": {next}, "password_confirmation": {next}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
	require.True(t, signedInAs(t, c))
	clk.Add(25 * time.Minute)
	assert.Equal(t, http.StatusSeeOther, c.get("/myaccount").StatusCode, "12 hours after signing in the session ends all the same")
}
