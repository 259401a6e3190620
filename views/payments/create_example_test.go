package payments_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/payments"
)

const examplePropsFile = "../../islands/invoice-upload/example-props.json"

// TestInvoiceUploadExample keeps islands/invoice-upload/example-props.json equal to the
// props the upload page gives the island (handlers/payments/create.go). Run with
// UPDATE_EXAMPLES=1 to rewrite it after changing InvoiceUploadProps.
func TestInvoiceUploadExample(t *testing.T) {
	p := pages.InvoiceUploadProps{
		UploadURL: "/api/v1/invoices/files/upload", FilePath: "/invoices/files", ResultPath: "/payments/create/files",
		FieldName: pages.InvoiceFileField, IconHref: "/static/icons.svg",
	}
	want, err := json.MarshalIndent(p, "", "  ")
	require.NoError(t, err)
	if os.Getenv("UPDATE_EXAMPLES") == "1" {
		require.NoError(t, os.WriteFile(examplePropsFile, append(want, '\n'), 0o644))
	}
	got, err := os.ReadFile(examplePropsFile)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.Equal(t, pay.InvoiceFileField, pages.InvoiceFileField)
}

// The no-JavaScript form: a labelled file input of the accepted types with its hint, and
// a refusal next to it and in the error summary.
func TestUploadFormWithoutJavaScript(t *testing.T) {
	var errs pay.FieldErrors
	errs.Add("invoice_file", "ファイルが空です。請求書のファイルを選択してください。")
	v := pages.CreateView{Base: views.Base{ServiceName: "請求書カード払い", Title: "請求書のアップロード", Errors: errs}, Action: "/payments/create"}
	var buf bytes.Buffer
	require.NoError(t, pages.CreatePage(v).Render(context.Background(), &buf))
	page := buf.String()
	for _, want := range []string{
		`enctype="multipart/form-data"`, `action="/payments/create"`,
		`<label class="field__label" for="invoice_file">`, `type="file"`, `name="invoice_file"`,
		`accept=".pdf,.jpg,.jpeg,.png"`, `PDF・JPEG・PNG、10MBまで`, `aria-invalid="true"`,
		`aria-describedby="invoice_file-hint invoice_file-error"`, `href="#invoice_file"`, "送信",
	} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 2, strings.Count(page, "ファイルが空です。"), "in the summary and under the field")
}

func TestFilePageOffersToLookAgainWhileReading(t *testing.T) {
	render := func(v pages.InvoiceFileView) string {
		var buf bytes.Buffer
		require.NoError(t, pages.InvoiceFilePage(v).Render(context.Background(), &buf))
		return buf.String()
	}
	reading := render(pages.InvoiceFileView{Name: "請求書.pdf", Reading: true, Status: "読み取り中…", Base: views.Base{CurrentPath: "/payments/create/files/7"}})
	assert.NotContains(t, reading, "http-equiv", "the page never reloads itself")
	assert.Contains(t, reading, `<a href="/payments/create/files/7">最新の状態に更新する</a>`)
	assert.Contains(t, reading, "読み取り中…")
	assert.Contains(t, reading, "<progress")
	done := render(pages.InvoiceFileView{Name: "請求書.pdf", Status: "読み取りが終わりました",
		Fields:  []pages.ReadField{{Label: "ご請求金額（税込）", Value: "¥110,000", Confidence: "高", Source: "請求書から読み取り（確度 高）"}},
		NextURL: "/payments/add/invoiceinfo"})
	assert.NotContains(t, done, "http-equiv")
	assert.Contains(t, done, "請求書から読み取りました")
	assert.Contains(t, done, "¥110,000")
	assert.Contains(t, done, `status-badge--success">請求書から読み取り（確度 高）</span>`, "where it came from and how sure, as text")
	assert.NotContains(t, done, "前回のお支払いで使った内容")

	// A field from the supplier's history says so, and the page says why.
	learned := render(pages.InvoiceFileView{Name: "請求書.pdf", Status: "読み取りが終わりました", FromHistory: true,
		Fields: []pages.ReadField{{Label: "口座名義", Value: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", Confidence: "高", Source: "前回のお支払いから（確度 高）", FromHistory: true}}})
	assert.Contains(t, learned, ">前回のお支払いから（確度 高）</span>")
	assert.Contains(t, learned, "この取引先への前回のお支払いで使った内容です")
	assert.Contains(t, done, `href="/payments/add/invoiceinfo"`)
}
