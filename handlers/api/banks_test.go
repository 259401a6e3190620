package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

func urlq(s string) string { return url.QueryEscape(s) }

// toFullWidth writes ASCII digits as full-width digits, as an IME types them.
func toFullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r - '0' + '０'
		}
		return r
	}, s)
}

func codes(r result, key string) []string {
	var out []string
	list, _ := r.Body[key].([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any)["code"].(string))
	}
	return out
}

func TestBankSearch(t *testing.T) {
	env := newEnv(t)
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))

	r := c.get("/banks2")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, []string{"0001", "0005", "0009", "0010", "0036", "0038", "0294", "9900"}, codes(r, "banks"), "the eight majors")
	assert.Equal(t, map[string]any{"code": "0001", "name": "みずほ銀行", "kana": "ミズホ"}, r.Body["banks"].([]any)[0])

	r = c.get("/banks2?q=" + urlq("みずほ"))
	assert.Equal(t, "0001", codes(r, "banks")[0])
	assert.Contains(t, codes(r, "banks"), "0289")
	r = c.get("/banks2?q=" + urlq("みずほ") + "&limit=1")
	assert.Equal(t, []string{"0001"}, codes(r, "banks"))
	r = c.get("/banks2?q=" + urlq("存在しない銀行名"))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, []any{}, r.Body["banks"])

	// With bank_code: that bank's branches.
	r = c.get("/banks2?bank_code=0001&limit=3")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, map[string]any{"code": "0001", "name": "みずほ銀行", "kana": "ミズホ"}, r.Body["bank"])
	assert.Equal(t, []string{"001", "004", "005"}, codes(r, "branches"))
	assert.Equal(t, map[string]any{"code": "001", "name": "東京営業部", "kana": "トウキヨウ"}, r.Body["branches"].([]any)[0])
	r = c.get("/banks2?bank_code=" + urlq("０００１") + "&q=" + urlq("東京営業部"))
	assert.Equal(t, "001", codes(r, "branches")[0])
	r = c.get("/banks2?bank_code=9900&q=018")
	assert.Equal(t, "018", codes(r, "branches")[0])
	r = c.get("/banks2?bank_code=0001&q=" + urlq("該当なし支店"))
	assert.Equal(t, []any{}, r.Body["branches"])

	for query, want := range map[string][2]string{
		"bank_code=0002":               {"bank_code", "金融機関コード0002は見つかりません。金融機関を選び直してください"},
		"bank_code=12":                 {"bank_code", "金融機関コードは4桁の数字で指定してください"},
		"bank_code=abcd":               {"bank_code", "金融機関コードは4桁の数字で指定してください"},
		"limit=0":                      {"limit", "limitは1から100までの整数で指定してください"},
		"limit=101":                    {"limit", "limitは1から100までの整数で指定してください"},
		"limit=ten":                    {"limit", "limitは1から100までの整数で指定してください"},
		"q=" + strings.Repeat("a", 65): {"q", "検索語は64文字以内で入力してください（現在65文字）"},
		"q=%FF":                        {"q", "検索語に読み取れない文字が含まれています。入力し直してください"},
		"bank_code=0001&q=" + "%00":    {"q", "検索語に使用できない文字が含まれています"},
	} {
		r := c.get("/banks2?" + query)
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s: %s", query, r)
		assert.Equal(t, want[1], r.fieldErrors()[want[0]], query)
	}
}

// The bank-account island calls banks2 with the session cookie.
func TestBankSearchInCookieMode(t *testing.T) {
	env := newEnv(t)
	browser := env.client(t)
	browser.cookieSignIn(webtest.NewBuyer(t, pay.Corporation, ""))
	browser.headers["X-Requested-With"] = "fetch"
	r := browser.get("/banks2?q=" + urlq("ゆうちょ"))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "9900", codes(r, "banks")[0])
}

type closed struct{ date, name string }

func closedDays(t *testing.T, r result) []closed {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, r.String())
	var out []closed
	for _, x := range r.Body["closed_days"].([]any) {
		m := x.(map[string]any)
		out = append(out, closed{m["date"].(string), m["name"].(string)})
	}
	return out
}

func TestClosedDays(t *testing.T) {
	env := newEnv(t)
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))

	// The year end: 12/31 and 1/2–1/3 besides 元日; 1/4/2027 is a Monday and open.
	r := c.get("/banks/closed_day?from=2026-12-28&to=2027-01-04")
	assert.Equal(t, []closed{
		{"2026-12-31", "年末休業"}, {"2027-01-01", "元日"}, {"2027-01-02", "年始休業"}, {"2027-01-03", "年始休業"},
	}, closedDays(t, r))
	assert.Equal(t, "2026-12-28", r.str("from"))
	assert.Equal(t, "2027-01-04", r.str("to"))

	// Golden Week 2027: 4/30 (Friday) and 5/6–5/7 are business days.
	r = c.get("/banks/closed_day?from=2027-04-28&to=2027-05-07")
	assert.Equal(t, []closed{
		{"2027-04-29", "昭和の日"}, {"2027-05-01", "土曜日"}, {"2027-05-02", "日曜日"},
		{"2027-05-03", "憲法記念日"}, {"2027-05-04", "みどりの日"}, {"2027-05-05", "こどもの日"},
	}, closedDays(t, r))

	// One day, open or closed.
	assert.Empty(t, closedDays(t, c.get("/banks/closed_day?from=2027-01-04&to=2027-01-04")))
	assert.Equal(t, []closed{{"2027-01-11", "成人の日"}}, closedDays(t, c.get("/banks/closed_day?from=2027-01-11&to=2027-01-11")))
	assert.Equal(t, http.StatusOK, c.get("/banks/closed_day?from=2027-01-01&to=2028-02-05").Status, "400 days")

	for query, want := range map[string][2]string{
		"from=2026-13-01":               {"from", "fromは実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）"},
		"from=2027-02-29":               {"from", "fromは実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）"},
		"from=20261231":                 {"from", "fromは実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）"},
		"from=2026/12/31":               {"from", "fromは実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）"},
		"to=tomorrow":                   {"to", "toは実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）"},
		"from=1999-12-31&to=2000-01-05": {"from", "fromは2000年から2099年までの日付で指定してください"},
		"from=2099-12-01&to=2100-01-05": {"to", "toは2000年から2099年までの日付で指定してください"},
		"from=2027-01-05&to=2027-01-04": {"to", "toはfrom以降の日付で指定してください"},
		"from=2027-01-01&to=2028-02-06": {"to", "期間（fromからtoまで）は400日以内で指定してください"},
	} {
		r := c.get("/banks/closed_day?" + query)
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s: %s", query, r)
		assert.Equal(t, want[1], r.fieldErrors()[want[0]], query)
	}
}

func TestClosedDaysDefaultToTheNext90DaysInTokyo(t *testing.T) {
	env := newEnv(t)
	// 2026-12-29 20:00 in UTC is already 12/30 in Tokyo.
	env.clock.Set(time.Date(2026, 12, 29, 20, 0, 0, 0, time.UTC))
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	r := c.get("/banks/closed_day")
	days := closedDays(t, r)
	assert.Equal(t, "2026-12-30", r.str("from"))
	assert.Equal(t, "2027-03-30", r.str("to"))
	assert.Equal(t, closed{"2026-12-31", "年末休業"}, days[0])
	assert.Equal(t, closed{"2027-03-28", "日曜日"}, days[len(days)-1])
	assert.Contains(t, days, closed{"2027-02-11", "建国記念の日"})
	assert.Contains(t, days, closed{"2027-03-21", "春分の日"})
	assert.Contains(t, days, closed{"2027-03-22", "振替休日"})

	r = c.get("/banks/closed_day?from=2027-04-28")
	assert.Equal(t, "2027-07-27", r.str("to"), "to follows from")
}

func TestHolderKana(t *testing.T) {
	env := newEnv(t)
	c := env.signedInAs(t, webtest.NewBuyer(t, pay.Corporation, ""))
	for in, want := range map[string]string{
		"ガ":           "ｶﾞ",
		"プ":           "ﾌﾟ",
		"ッ":           "ﾂ",
		"ー":           "-",
		"・":           ".",
		"キャッシュ・コーヒー":  "ｷﾔﾂｼﾕ.ｺ-ﾋ-",
		"  ヤマダ　　タロウ ": "ﾔﾏﾀﾞ ﾀﾛｳ",
		"やまだ たろう":     "ﾔﾏﾀﾞ ﾀﾛｳ",
		"カ）ヤマダショウジ":   "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ",
		"ｶ)ﾔﾏﾀﾞ":      "ｶ)ﾔﾏﾀﾞ",
		"ｙａｍａｄａ Taro": "YAMADA TARO",
		"ヴィ":          "ｳﾞｲ",
	} {
		r := c.post("/accounts/holder_kana", map[string]any{"holder_name": in})
		require.Equal(t, http.StatusOK, r.Status, "%q: %s", in, r)
		assert.Equal(t, want, r.str("holder_name"), in)
		assert.Equal(t, true, r.Body["valid"])
		assert.Equal(t, float64(2), r.num("kind"), "kind defaults to 2")
	}
	r := c.post("/accounts/holder_kana", map[string]any{"holder_name": "ヤマダ タロウ", "kind": 4})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "ﾔﾏﾀﾞ ﾀﾛｳ", r.str("holder_name"), "kind 4 normalises the same way")
	assert.Equal(t, float64(4), r.num("kind"))

	for _, tc := range []struct {
		body       any
		field, msg string
	}{
		{map[string]any{"holder_name": "山田太郎"}, "holder_name", "口座名義に「山」は使えません。カタカナ・英数字で入力してください"},
		{map[string]any{"holder_name": "ヤマダ 太郎"}, "holder_name", "口座名義に「太」は使えません。カタカナ・英数字で入力してください"},
		{map[string]any{"holder_name": "ヤマダ\u200bタロウ"}, "holder_name", "口座名義に目に見えない文字（U+200B）が含まれています。削除してから入力し直してください"},
		{map[string]any{"holder_name": "　"}, "holder_name", "口座名義を入力してください"},
		{map[string]any{}, "holder_name", "口座名義を入力してください"},
		{map[string]any{"holder_name": strings.Repeat("ア", 31)}, "holder_name", "口座名義は半角30文字以内で入力してください（現在31文字）"},
		{map[string]any{"holder_name": "ヤマダ", "kind": 3}, "kind", "kindは2（通常）または4（個人）で指定してください"},
		{map[string]any{"holder_name": "ヤマダ", "kind": "2"}, "kind", "kindは整数で指定してください"},
		{map[string]any{"holder_name": 42}, "holder_name", "holder_nameは文字列で指定してください"},
	} {
		r := c.post("/accounts/holder_kana", tc.body)
		require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%v: %s", tc.body, r)
		assert.Equal(t, "validation_error", r.str("status"))
		assert.Equal(t, tc.msg, r.fieldErrors()[tc.field], "%v", tc.body)
	}
}
