package signup

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/signup"
)

// These tests look inside the registration form's layout, so they are internal; the
// journeys through the pages are in registration_test.go (package signup_test).

// CorporationForm is a complete registration of a corporation, typed the way people
// type: hyphens, a postal mark, hiragana in a kana field. It is exported to the
// package's external tests (signup_test) from this test file only.
func CorporationForm() url.Values {
	return url.Values{
		"step":                                 {"details"},
		"corporate_name":                       {"株式会社テスト商事"},
		"corporate_name_kana":                  {"かぶしきがいしゃてすとしょうじ"},
		"corporate_number":                     {"7000012050002"},
		"business_category":                    {"I"},
		"postal_code":                          {"〒100-0001"},
		"address_state":                        {"東京都"},
		"address_city":                         {"千代田区"},
		"address_street":                       {"千代田1-1"},
		"address_building_name":                {""},
		"representative_last_name":             {"山田"},
		"representative_first_name":            {"太郎"},
		"representative_last_name_kana":        {"ヤマダ"},
		"representative_first_name_kana":       {"タロウ"},
		"representative_birthday":              {"1980-04-01"},
		"representative_postal_code":           {"0600000"},
		"representative_address_state":         {"北海道"},
		"representative_address_city":          {"札幌市中央区"},
		"representative_address_street":        {"北1条西2丁目"},
		"representative_address_building_name": {"テストビル5階"},
		"representative_phone_number":          {"011-123-4567"},
		"user_last_name":                       {"佐藤"},
		"user_first_name":                      {"花子"},
		"phone_number":                         {"090-1234-5678"},
		"transfer_person_name":                 {""},
	}
}

// TestRegistrationRulesMatchPay keeps the island's checks (derived from Validate) in
// step with pay: every field Validate asks for is on the form, every rule's message is
// Validate's, and the length limits are Validate's.
func TestRegistrationRulesMatchPay(t *testing.T) {
	now := time.Now()
	for _, form := range []pay.BusinessForm{pay.Corporation, pay.SoleProprietor} {
		layout := registrationLayout(form)
		rules := registrationRules(form)
		onForm := map[string]bool{}
		for _, g := range layout {
			for _, f := range g.fields {
				assert.False(t, onForm[f.name], "%s once", f.name)
				onForm[f.name] = true
				_, ok := registrationFieldIndex[f.name]
				assert.True(t, ok, "%s is a field of account.Registration", f.name)
			}
		}
		for _, e := range (account.Registration{BusinessForm: form}).Validate(now) {
			assert.True(t, onForm[e.Field], "%s (%s) is asked on the form of %s", e.Field, e.Message, form.Label())
		}
		for name, r := range rules {
			if r.MaxLength == 0 {
				continue
			}
			ok, long := account.Registration{BusinessForm: form}, account.Registration{BusinessForm: form}
			v := strings.Repeat("ア", r.MaxLength)
			setRegistrationValue(&ok, name, v)
			setRegistrationValue(&long, name, v+"ア")
			assert.Empty(t, ok.Validate(now).For(name), "%s takes %d characters", name, r.MaxLength)
			assert.Equal(t, r.TooLong, long.Validate(now).For(name), name)
			assert.NotEmpty(t, r.TooLong, name)
		}
		assert.Empty(t, rules["transfer_person_name"].Required, "optional")
		assert.Equal(t, "代表者の姓（カナ）は全角カタカナで入力してください", rules["representative_last_name_kana"].Format)
	}
}

// exampleRegistrationProps are what the island's own test renders
// (islands/registration/example-props.json): the corporation's form with an error and
// a lookup outcome. Run with UPDATE_EXAMPLES=1 to rewrite the file after a change.
func TestRegistrationExampleProps(t *testing.T) {
	values := map[string]string{}
	for k, v := range CorporationForm() {
		values[k] = v[0]
	}
	values["corporate_name_kana"] = "山田商事"
	rf := registrationForm{form: pay.Corporation, values: values, status: map[string]string{"postal_code": pages.PostalFound + "東京都千代田区"}}
	rf.errs.Add("corporate_name_kana", registrationRules(pay.Corporation)["corporate_name_kana"].Format)
	p := rf.props()
	p.IconHref = "/static/icons.svg"
	want, err := json.MarshalIndent(p, "", "  ")
	require.NoError(t, err)
	const file = "../../islands/registration/example-props.json"
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(file, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	// The server's fallback for the same props, which the island's test compares its
	// own markup with.
	var buf bytes.Buffer
	require.NoError(t, pages.RegistrationPage(pages.RegistrationView{Base: views.Base{ServiceName: "請求書カード払い"}, BusinessFormLabel: "法人", Form: p}).
		Render(context.Background(), &buf))
	page := buf.String()
	start, end := strings.Index(page, `<form method="post" action="/registration"`), strings.LastIndex(page, "</form>")
	require.True(t, start > 0 && end > start)
	fallback := page[start:end+len("</form>")] + "\n"
	const fallbackFile = "../../islands/registration/example-fallback.html"
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(fallbackFile, []byte(fallback), 0o644))
	}
	gotFallback, err := os.ReadFile(fallbackFile)
	require.NoError(t, err)
	assert.Equal(t, fallback, string(gotFallback), "run with UPDATE_EXAMPLES=1 after changing the form")
}
