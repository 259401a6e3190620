package views_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/banks"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
)

const (
	bankAccountExamplePropsFile    = "../islands/supplier-account/example-props.json"
	bankAccountExampleFallbackFile = "../islands/supplier-account/example-fallback.html"
	// exampleSprite stands for the hashed sprite URL, so a rebuilt sprite does not
	// change the example files.
	exampleSprite = "/static/icons.svg"
)

// exampleBankAccountProps are what the supplier-account island's own test renders: the
// wizard's bank step posted back with a bad account number (what
// handlers/web/bankaccountform.go builds for that case).
func exampleBankAccountProps() views.BankAccountFormProps {
	p := views.BankAccountFormProps{
		Action: "/suppliers/add/bank", SubmitLabel: "次へ",
		BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
		AccountType: "2", AccountNumber: "12345", HolderName: "カ）ヤマダショウジ",
		Errors:   map[string]string{"account_number": pay.ErrAccountNumberFormat.Error()},
		IconHref: exampleSprite,
	}
	for _, m := range banks.Major() {
		p.Majors = append(p.Majors, views.BankChoice{Code: m.Code, Name: m.Name, Kana: m.Kana})
	}
	return p
}

// TestSupplierAccountExample keeps islands/supplier-account/example-props.json and
// example-fallback.html (the server's form for the same props, which the island's test
// compares its own fields with) equal to what Go produces. Run with UPDATE_EXAMPLES=1 to
// rewrite both after changing BankAccountFormProps or the form.
func TestSupplierAccountExample(t *testing.T) {
	p := exampleBankAccountProps()
	require.Len(t, p.Majors, 8)
	want, err := json.MarshalIndent(p, "", "  ")
	require.NoError(t, err)
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(bankAccountExamplePropsFile, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(bankAccountExamplePropsFile)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))

	v := views.BankAccountFormView{Base: views.Base{ServiceName: "請求書カード払い", CurrentPath: "/suppliers/add/bank"}, Heading: "振込先口座の入力", Mode: "details", Props: p}
	for field, msg := range p.Errors {
		v.Errors.Add(field, msg)
	}
	var buf bytes.Buffer
	require.NoError(t, views.BankAccountFormPage(v).Render(context.Background(), &buf))
	page := buf.String()
	start := strings.Index(page, `<form method="post" action="/suppliers/add/bank"`)
	require.Positive(t, start)
	end := strings.Index(page[start:], "</form>")
	require.Positive(t, end)
	fallback := page[start:start+end+len("</form>")] + "\n"
	if sprite := static.URL("dist/icons.svg"); sprite != "" {
		fallback = strings.ReplaceAll(fallback, sprite, exampleSprite)
	}
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(bankAccountExampleFallbackFile, []byte(fallback), 0o644))
	}
	gotFallback, err := os.ReadFile(bankAccountExampleFallbackFile)
	require.NoError(t, err)
	assert.Equal(t, fallback, string(gotFallback), "run with UPDATE_EXAMPLES=1 after changing the form")
}
