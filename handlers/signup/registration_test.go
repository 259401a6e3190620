package signup_test

import (
	"bytes"
	"compress/gzip"
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

	"cardpay/handlers/signup"
	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	pages "cardpay/views/signup"
)

func soleProprietorForm() url.Values {
	return url.Values{
		"step":                           {"details"},
		"business_name":                  {"テスト工房"},
		"business_name_kana":             {"テストコウボウ"},
		"business_category":              {"E"},
		"business_postal_code":           {"1000001"},
		"business_address_state":         {"東京都"},
		"business_address_city":          {"千代田区"},
		"business_address_street":        {"千代田1-1"},
		"business_address_building_name": {""},
		"representative_last_name":       {"鈴木"},
		"representative_first_name":      {"一郎"},
		"representative_last_name_kana":  {"スズキ"},
		"representative_first_name_kana": {"イチロウ"},
		"representative_birthday":        {"1975/1/2"},
		"home_postal_code":               {"0600000"},
		"home_address_state":             {"北海道"},
		"home_address_city":              {"札幌市中央区"},
		"home_address_street":            {"北1条西2丁目"},
		"home_address_building_name":     {"コーポ101"},
		"user_last_name":                 {"鈴木"},
		"user_first_name":                {"一郎"},
		"phone_number":                   {"03-1234-5678"},
		"transfer_person_name":           {"ｽｽﾞｷ ｲﾁﾛｳ"},
	}
}

func chooseBusinessForm(t *testing.T, c *webtest.Client, form string) {
	t.Helper()
	res := c.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {form}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration", res.Header.Get("Location"))
}

// changeLinkRe finds the check-answers page's 変更 links and their hidden labels.
var changeLinkRe = regexp.MustCompile(`<a href="(/registration[^"]*)"><span class="visually-hidden">([^<]*)を</span>変更</a>`)

func TestRegistrationJourneyCorporation(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	c := env.Client(t)

	// Sign-up, and a wrong code before the right one.
	page := c.Get("/signup")
	require.Equal(t, http.StatusOK, page.StatusCode)
	code := webtest.SignUp(t, env, c, email)
	page = c.Get("/signup/code")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, email+"</span> 宛てに認証コードを送信しました")
	assert.Contains(t, page.Body, `autocomplete="one-time-code"`)
	assert.Equal(t, http.StatusUnprocessableEntity, c.Post("/signup/code", url.Values{"code": {webtest.WrongCode(code)}}).StatusCode)
	res := c.Post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration", res.Header.Get("Location"))

	// Step 1: the business form.
	page = c.Get("/registration")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "メールアドレスを確認しました")
	assert.Contains(t, page.Body, "<title>利用者情報の登録：事業形態の選択 | 請求書カード払い</title>")
	assert.Contains(t, page.Body, `<legend class="fieldset__legend">事業形態`)
	assert.Contains(t, page.Body, `id="business_form" name="business_form" type="radio" value="1"`)
	assert.Contains(t, page.Body, `id="business_form-2" name="business_form" type="radio" value="2"`)
	assert.NotContains(t, page.Body, `data-island="registration"`, "the first question needs no island")
	chooseBusinessForm(t, c, "1")

	// Step 2: the corporation's form, in fieldsets, inside the island.
	page = c.Get("/registration")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "<title>利用者情報の登録：法人 | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(page.Body, "<h1"))
	for _, legend := range []string{"法人情報", "所在地（本店）", "代表者", "代表者の住所・電話番号", "ご担当者", "振込依頼人名"} {
		assert.Contains(t, page.Body, `<h2 class="form-group__title">`+legend+`</h2>`)
	}
	assert.NotContains(t, page.Body, "home_postal_code", "no sole-proprietor fields")
	assert.Contains(t, page.Body, `data-island="registration"`)
	assert.Contains(t, page.Body, `<option value="I">卸売業，小売業</option>`)
	assert.Contains(t, page.Body, `name="lookup" value="postal_code"`)
	assert.Contains(t, page.Body, `name="lookup" value="representative_postal_code"`)
	assert.Regexp(t, `id="corporate_name_kana"[^>]*aria-describedby="corporate_name_kana-hint"`, page.Body)
	assert.Less(t, strings.Index(page.Body, "<button type=\"submit\" hidden"), strings.Index(page.Body, `name="lookup"`),
		"Enter submits the form, not the first 住所を検索")

	res = c.Post("/registration", signup.CorporationForm())
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration/confirm", res.Header.Get("Location"))

	// Check answers: every row links back to its field.
	page = c.Get("/registration/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "<title>登録内容の確認 | 請求書カード払い</title>")
	for _, want := range []string{email, "株式会社テスト商事", "カブシキガイシャテストショウジ", "7000012050002", "卸売業，小売業",
		"〒100-0001 東京都千代田区千代田1-1", "山田　太郎", "1980年4月1日", "〒060-0000 北海道札幌市中央区北1条西2丁目 テストビル5階",
		"0111234567", "佐藤　花子", "未入力"} {
		assert.Contains(t, page.Body, want)
	}
	links := changeLinkRe.FindAllStringSubmatch(page.Body, -1)
	require.NotEmpty(t, links)
	hrefs := map[string]string{}
	for _, l := range links {
		hrefs[l[2]] = l[1]
	}
	assert.Equal(t, "/registration#corporate_name", hrefs["法人名"])
	assert.Equal(t, "/registration#representative_birthday", hrefs["代表者生年月日"])
	assert.Equal(t, "/registration?step=business_form#business_form", hrefs["事業形態"])
	for _, l := range links {
		if l[1] == "/registration?step=business_form#business_form" {
			continue
		}
		field := strings.TrimPrefix(l[1], "/registration#")
		assert.Contains(t, c.Get("/registration").Body, `id="`+field+`"`, "the 変更 link for %s lands on its field", l[2])
	}
	// 変更 comes back with the answers kept.
	page = c.Get("/registration")
	assert.Contains(t, page.Body, `value="カブシキガイシャテストショウジ"`, "the stored, normalised answer")
	assert.Regexp(t, `<option value="東京都" selected>`, page.Body)

	res = c.Post("/registration/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration/result", res.Header.Get("Location"))
	page = c.Get("/registration/result")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "登録が完了しました")
	assert.Contains(t, page.Body, `href="/signin"`)
	assert.Contains(t, page.Body, "ログインしてご利用ください")

	// The wizard's data is gone; the account exists with what was entered.
	assert.Equal(t, http.StatusSeeOther, c.Get("/registration").StatusCode)
	assert.Equal(t, http.StatusSeeOther, c.Get("/registration/confirm").StatusCode)
	u, err := webtest.Store().UserByEmail(context.Background(), email)
	require.NoError(t, err)
	assert.Equal(t, pay.Corporation, u.BusinessForm)
	assert.Equal(t, "佐藤", u.LastName)
	assert.Equal(t, "09012345678", u.PhoneNumber)
	b, err := webtest.Store().Buyer(context.Background(), u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "株式会社テスト商事", b.CorporateName)
	assert.Equal(t, "カブシキガイシャテストショウジ", b.CorporateNameKana)
	assert.Equal(t, "7000012050002", b.CorporateNumber)
	assert.Equal(t, "1000001", b.PostalCode)
	assert.Equal(t, "I", b.BusinessCategory)
	assert.Equal(t, "カブシキガイシャテストショウジ", b.TransferPersonName, "an empty transfer name defaults to the kana name")

	// The new account signs in.
	s := env.Client(t)
	res = s.Post("/signin", url.Values{"email_address": {email}, "password": {webtest.SignupPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/toppage", res.Header.Get("Location"))
	assert.Equal(t, http.StatusSeeOther, s.Get("/toppage").StatusCode)
	assert.Contains(t, s.Get("/payments/create").Body, "株式会社テスト商事")
}

// The form is the largest public page; it stays within the 14 KB (gzipped) budget of
// DESIGN.md §5, island props included.
func TestRegistrationPageWeight(t *testing.T) {
	env := webtest.New(t)
	for _, form := range []string{"1", "2"} {
		c := webtest.VerifiedClient(t, env, webtest.SignupEmail(t))
		chooseBusinessForm(t, c, form)
		c.Get("/registration") // takes the flash
		res := c.Get("/registration")
		require.Equal(t, http.StatusOK, res.StatusCode)
		var gz bytes.Buffer
		w, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
		require.NoError(t, err)
		_, err = w.Write([]byte(res.Body))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		assert.LessOrEqual(t, gz.Len(), 14*1024, "business form %s: %d bytes gzipped", form, gz.Len())
	}
}

func TestRegistrationJourneySoleProprietor(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	c := webtest.VerifiedClient(t, env, email)
	chooseBusinessForm(t, c, "2")

	page := c.Get("/registration")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "利用者情報の登録（個人事業主）")
	for _, legend := range []string{"事業者情報", "事業所所在地", "事業主（代表者）", "自宅住所", "ご担当者", "振込依頼人名"} {
		assert.Contains(t, page.Body, `<h2 class="form-group__title">`+legend+`</h2>`)
	}
	assert.NotContains(t, page.Body, `id="corporate_number"`, "no corporation fields")

	res := c.Post("/registration", soleProprietorForm())
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = c.Get("/registration/confirm")
	require.Equal(t, http.StatusOK, page.StatusCode)
	for _, want := range []string{"個人事業主", "テスト工房", "製造業", "〒100-0001 東京都千代田区千代田1-1", "鈴木　一郎", "1975年1月2日",
		"〒060-0000 北海道札幌市中央区北1条西2丁目 コーポ101", "スズキ　イチロウ"} {
		assert.Contains(t, page.Body, want)
	}
	assert.NotContains(t, page.Body, "法人番号")

	require.Equal(t, http.StatusSeeOther, c.Post("/registration/confirm", nil).StatusCode)
	require.Equal(t, http.StatusOK, c.Get("/registration/result").StatusCode)

	u, err := webtest.Store().UserByEmail(context.Background(), email)
	require.NoError(t, err)
	assert.Equal(t, pay.SoleProprietor, u.BusinessForm)
	b, err := webtest.Store().Buyer(context.Background(), u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "テスト工房", b.BusinessName)
	assert.Equal(t, "0600000", b.HomePostalCode)
	assert.Equal(t, "スズキ　イチロウ", b.TransferPersonName, "half-width kana became full-width")
	assert.Empty(t, b.CorporateNumber)

	s := env.Client(t)
	require.Equal(t, http.StatusSeeOther, s.Post("/signin", url.Values{"email_address": {email}, "password": {webtest.SignupPassword}}).StatusCode)
	assert.Contains(t, s.Get("/payments/create").Body, "テスト工房")
}

func TestRegistrationRejectsBadInput(t *testing.T) {
	env := webtest.New(t)
	c := webtest.VerifiedClient(t, env, webtest.SignupEmail(t))

	res := c.Post("/registration", url.Values{"step": {"business_form"}})
	webtest.AssertSignupFieldError(t, res, "business_form", "事業形態を選択してください")
	for _, bad := range []string{"3", "0", "-1", "1.5", "\xff", strings.Repeat("9", 30)} {
		res = c.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {bad}})
		webtest.AssertSignupFieldError(t, res, "business_form", "事業形態を選択してください")
	}
	assert.Contains(t, c.Get("/registration").Body, "事業形態の選択", "nothing stored: still the first question")
	chooseBusinessForm(t, c, "1")

	with := func(field, value string) url.Values {
		f := signup.CorporationForm()
		f.Set(field, value)
		return f
	}
	tests := []struct {
		name    string
		form    url.Values
		field   string
		message string
	}{
		{"empty form", url.Values{"step": {"details"}}, "corporate_name", "法人名を入力してください"},
		{"empty form: select", url.Values{"step": {"details"}}, "business_category", "業種を選択してください"},
		{"empty form: prefecture", url.Values{"step": {"details"}}, "address_state", "所在地の都道府県を選択してください"},
		{"empty form: contact", url.Values{"step": {"details"}}, "phone_number", "担当者の電話番号を入力してください"},
		{"kanji in a kana field", with("representative_last_name_kana", "山田"), "representative_last_name_kana", "代表者の姓（カナ）は全角カタカナで入力してください"},
		{"kanji in the transfer name", with("transfer_person_name", "山田商事"), "transfer_person_name", "振込依頼人名（カナ）は全角カタカナで入力してください"},
		{"invalid corporate number", with("corporate_number", "1234567890123"), "corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください"},
		{"too long name", with("corporate_name", strings.Repeat("あ", 51)), "corporate_name", "法人名は50文字以内で入力してください"},
		{"too long address", with("address_street", strings.Repeat("1", 101)), "address_street", "所在地の町名・番地は100文字以内で入力してください"},
		{"invalid UTF-8", with("user_last_name", "\xff\xfe山田"), "user_last_name", "担当者の姓に読み取れない文字が含まれています"},
		{"control characters", with("user_first_name", "花\u202e子"), "user_first_name", "担当者の名に使用できない文字が含まれています"},
		{"postal code", with("postal_code", "12345"), "postal_code", "所在地の郵便番号は7桁の数字で入力してください"},
		{"phone", with("phone_number", "12-3456"), "phone_number", "担当者の電話番号は0から始まる10桁または11桁の数字で入力してください"},
		{"birthday", with("representative_birthday", "2023-02-29"), "representative_birthday", "代表者の生年月日を正しい日付で入力してください"},
		{"too young", with("representative_birthday", time.Now().AddDate(-17, 0, 0).Format(time.DateOnly)), "representative_birthday", "18歳以上の場合のみ"},
		{"unknown prefecture", with("address_state", "東京"), "address_state", "所在地の都道府県を選択してください"},
		{"unknown category", with("business_category", "Z"), "business_category", "業種を選択してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Post("/registration", tt.form)
			webtest.AssertSignupFieldError(t, res, tt.field, html.EscapeString(tt.message))
			assert.Contains(t, res.Body, "<title>エラー：利用者情報の登録：法人 | 請求書カード払い</title>")
			assert.NotContains(t, res.Body, "\xff", "invalid UTF-8 is not echoed back")
			assert.Equal(t, "/registration", c.Get("/registration/confirm").Header.Get("Location"), "nothing stored")
		})
	}
	// Values come back as typed.
	res = c.Post("/registration", with("corporate_name", strings.Repeat("あ", 51)))
	assert.Contains(t, res.Body, `value="`+strings.Repeat("あ", 51)+`"`)
	assert.Contains(t, res.Body, `value="かぶしきがいしゃてすとしょうじ"`)
	// The summary lists the problems in the order of the page.
	res = c.Post("/registration", url.Values{"step": {"details"}})
	first, last := strings.Index(res.Body, `href="#corporate_name"`), strings.Index(res.Body, `href="#phone_number"`)
	assert.True(t, first > 0 && last > first)

}

func TestRegistrationPostalLookupWithoutJavaScript(t *testing.T) {
	env := webtest.New(t)
	c := webtest.VerifiedClient(t, env, webtest.SignupEmail(t))
	chooseBusinessForm(t, c, "1")

	f := url.Values{"step": {"details"}, "corporate_name": {"株式会社検索"}, "postal_code": {"１００－０００１"}, "lookup": {"postal_code"}}
	res := c.Post("/registration", f)
	require.Equal(t, http.StatusOK, res.StatusCode, "a lookup is not an error")
	assert.Regexp(t, `<option value="東京都" selected>`, res.Body)
	assert.Regexp(t, `id="address_city" name="address_city" type="text" value="千代田区"`, res.Body)
	assert.Contains(t, res.Body, `value="株式会社検索"`, "what was typed is kept")
	assert.Contains(t, res.Body, `value="１００－０００１"`)
	assert.Contains(t, res.Body, "郵便番号から住所を入力しました：東京都千代田区")
	assert.Regexp(t, `id="address_street"[^>]*autofocus`, res.Body, "the street is next")
	assert.NotContains(t, res.Body, "error-summary")
	assert.Equal(t, "/registration", c.Get("/registration/confirm").Header.Get("Location"), "nothing stored")
	assert.NotContains(t, c.Get("/registration").Body, "株式会社検索", "nothing stored")

	// The representative's address has its own button.
	res = c.Post("/registration", url.Values{"step": {"details"}, "representative_postal_code": {"060-0000"}, "lookup": {"representative_postal_code"}})
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Regexp(t, `<option value="北海道" selected>`, res.Body)
	assert.Contains(t, res.Body, `value="札幌市中央区"`)

	for _, tt := range []struct{ code, message string }{
		{"9999999", pages.PostalNotFound},
		{"123", "所在地の郵便番号は7桁の数字で入力してください"},
		{"", "所在地の郵便番号を入力してください"},
		{"\xff\xfe", "所在地の郵便番号は7桁の数字で入力してください"},
	} {
		res = c.Post("/registration", url.Values{"step": {"details"}, "postal_code": {tt.code}, "lookup": {"postal_code"}})
		webtest.AssertSignupFieldError(t, res, "postal_code", tt.message)
		assert.NotContains(t, res.Body, `<option value="東京都" selected>`)
	}
	// An unknown lookup target only shows the form again.
	res = c.Post("/registration", url.Values{"step": {"details"}, "lookup": {"corporate_name"}})
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

func TestRegistrationNeedsAVerifiedSignup(t *testing.T) {
	env := webtest.New(t)
	anon := env.Client(t)
	for _, p := range []string{"/registration", "/registration/confirm"} {
		res := anon.Get(p)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, p)
		assert.Equal(t, "/signup", res.Header.Get("Location"), p)
	}
	res := anon.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {"1"}})
	assert.Equal(t, "/signup", res.Header.Get("Location"))
	assert.Equal(t, "/signup", anon.Post("/registration/confirm", nil).Header.Get("Location"))
	assert.Equal(t, "/signin", anon.Get("/registration/result").Header.Get("Location"))

	// A sign-up whose code was not entered waits on the code page.
	email := webtest.SignupEmail(t)
	c := env.Client(t)
	webtest.SignUp(t, env, c, email)
	res = c.Get("/registration")
	assert.Equal(t, "/signup/code", res.Header.Get("Location"))
	assert.Contains(t, c.Get("/signup/code").Body, "認証コードを入力してください")

	// Knowing the address is not enough: re-registration of someone else's verified
	// sign-up does not open their wizard.
	victim := webtest.SignupEmail(t)
	require.Equal(t, http.StatusOK, webtest.VerifiedClient(t, env, victim).Get("/registration").StatusCode)
	other := env.Client(t)
	res = other.Post("/password/reregistration", url.Values{"email_address": {victim}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signup/code", other.Get("/registration").Header.Get("Location"))
	assert.Equal(t, "/signup/code", other.Post("/registration/confirm", nil).Header.Get("Location"))
}

func TestRegistrationTwiceIsRefused(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	a := webtest.VerifiedClient(t, env, email)

	// A second session proves the same address through re-registration.
	b := env.Client(t)
	require.Equal(t, http.StatusSeeOther, b.Post("/password/reregistration", url.Values{"email_address": {email}}).StatusCode)
	code := mailtest.Code(env.Mail.WaitFor(t, email, 5*time.Second).Text)
	require.Equal(t, "/registration", b.Post("/signup/code", url.Values{"code": {code}}).Header.Get("Location"))

	for _, c := range []*webtest.Client{a, b} {
		chooseBusinessForm(t, c, "1")
		require.Equal(t, http.StatusSeeOther, c.Post("/registration", signup.CorporationForm()).StatusCode)
	}
	require.Equal(t, "/registration/result", a.Post("/registration/confirm", nil).Header.Get("Location"))

	res := b.Post("/registration/confirm", nil)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.Contains(t, b.Get("/signin").Body, "この登録は既に完了しています")
	res = a.Post("/registration/confirm", nil)
	assert.Equal(t, "/signup", res.Header.Get("Location"), "the finished wizard's data is gone")
	assert.Equal(t, 1, countUsers(t, email), "one account")
}

// A race between two sessions reaches Register's own refusal, shown on the form.
func TestRegistrationRefusalIsShownOnTheForm(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	c := webtest.VerifiedClient(t, env, email)
	chooseBusinessForm(t, c, "1")
	require.Equal(t, http.StatusSeeOther, c.Post("/registration", signup.CorporationForm()).StatusCode)
	// Another sign-up for the same address finishes first.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	_, err := webtest.Store().DB.ExecContext(context.Background(), `UPDATE users SET email_address = $1 WHERE id = $2`, email, other.ID)
	require.NoError(t, err)

	res := c.Post("/registration/confirm", nil)
	webtest.AssertSignupFieldError(t, res, "business_form", "このメールアドレスは既に登録されています。ログインしてください。")
	assert.Contains(t, res.Body, `id="business_form"`)
	assert.Equal(t, 1, countUsers(t, email))
}

func TestRegistrationBusinessFormCanChange(t *testing.T) {
	env := webtest.New(t)
	c := webtest.VerifiedClient(t, env, webtest.SignupEmail(t))
	chooseBusinessForm(t, c, "1")
	require.Equal(t, http.StatusSeeOther, c.Post("/registration", signup.CorporationForm()).StatusCode)

	page := c.Get("/registration?step=business_form")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Regexp(t, `id="business_form" name="business_form" type="radio" value="1" checked`, page.Body)
	chooseBusinessForm(t, c, "2")
	assert.Equal(t, "/registration", c.Get("/registration/confirm").Header.Get("Location"), "the sole proprietor's answers are not complete yet")
	page = c.Get("/registration")
	assert.Contains(t, page.Body, "利用者情報の登録（個人事業主）")
	assert.Contains(t, page.Body, `value="佐藤"`, "shared answers are kept")
}

func TestPostalCodesAPI(t *testing.T) {
	c := webtest.New(t).Client(t)
	res := c.Get("/api/v1/postal_codes/1000001")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Header.Get("Content-Type"), "application/json")
	assert.JSONEq(t, `{"addresses":[{"prefecture_code":13,"prefecture":"東京都","city":"千代田区"}]}`, res.Body)
	for _, code := range []string{"9999999", "123", "abcdefg", "%FF%FE"} {
		res = c.Get("/api/v1/postal_codes/" + code)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, code)
		assert.JSONEq(t, `{"status":"not_found"}`, res.Body, code)
	}
	res = c.Post("/api/v1/postal_codes/1000001", nil)
	assert.NotEqual(t, http.StatusOK, res.StatusCode, "GET only")
}

// A code entered after the same sign-up was registered in another session sends the
// person to sign in.
func TestSignupCodeAfterTheRegistrationFinished(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	a := webtest.VerifiedClient(t, env, email)
	b := env.Client(t)
	require.Equal(t, http.StatusSeeOther, b.Post("/password/reregistration", url.Values{"email_address": {email}}).StatusCode)
	code := mailtest.Code(env.Mail.WaitFor(t, email, 5*time.Second).Text)

	chooseBusinessForm(t, a, "2")
	require.Equal(t, http.StatusSeeOther, a.Post("/registration", soleProprietorForm()).StatusCode)
	require.Equal(t, "/registration/result", a.Post("/registration/confirm", nil).Header.Get("Location"))

	res := b.Post("/signup/code", url.Values{"code": {code}})
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/signin", res.Header.Get("Location"))
	assert.Contains(t, b.Get("/signin").Body, "この登録は既に完了しています")
}
