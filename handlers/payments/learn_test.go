package payments_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
)

// yamadaInvoice is an invoice of the payer's supplier 株式会社山田商事 whose account
// number is misprinted (1234561 for the registered 1234567) and whose holder is missing:
// as a reading that gets one wrong and misses the other would leave it, but exact and
// fast (a text PDF).
func yamadaInvoice(t *testing.T, seed int64) (invoicegen.Truth, []byte) {
	t.Helper()
	tr := invoicegen.New(seed).Invoice()
	tr.IssuerName, tr.IssuerPrinted, tr.RegistrationNumber = "株式会社山田商事", "株式会社山田商事", "T1180301018771"
	tr.BankName, tr.BranchName, tr.BranchCode, tr.BranchPrinted = "みずほ銀行", "東京営業部", "001", "東京営業部"
	tr.AccountType, tr.AccountNumber, tr.AccountHolder, tr.HolderPrinted = pay.AccountOrdinary, "1234561", "", ""
	pdf, err := invoicegen.RenderPDF(tr, invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	return tr, pdf
}

// uploadAndRead uploads an invoice (name says its kind: 請求書.pdf, 請求書.png) and waits
// for its reading: the file page's path and its page once read.
func uploadAndRead(t *testing.T, c *webtest.Client, name string, content []byte) (string, webtest.Response) {
	t.Helper()
	res := upload(t, c, name, content)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	var page webtest.Response
	require.Eventually(t, func() bool {
		page = c.Get(loc)
		return page.StatusCode == http.StatusOK && !strings.Contains(page.Body, "読み取り中")
	}, 60*time.Second, 200*time.Millisecond, "the OCR job finishes")
	require.Contains(t, page.Body, "読み取りが終わりました")
	return loc, page
}

// readRow is the file page's row of a read field: its value and its badge.
func readRow(body, label string) string {
	_, after, ok := strings.Cut(body, `<dt class="summary-list__key">`+label+`</dt>`)
	if !ok {
		return ""
	}
	row, _, _ := strings.Cut(after, "</div>")
	return row
}

var acknowledgeRe = regexp.MustCompile(`name="acknowledge"[^>]*value="([a-z_]+)"`)

// Learn per supplier, end to end (issue 28): the buyer pays an invoice whose account
// number the reading gets wrong and whose holder it misses, correcting both (the
// registered account); the next invoice of the same issuer, read the same way, offers the
// account number and holder the buyer paid with, marked as from the supplier's history,
// and the registered account is chosen.
func TestSecondInvoiceOfASupplierOffersWhatTheBuyerCorrected(t *testing.T) {
	p := newPayer(t, "4111111111111111")

	truth, pdf := yamadaInvoice(t, 21)
	file, page := uploadAndRead(t, p.c, "請求書.pdf", pdf)
	assert.Contains(t, readRow(page.Body, "口座番号"), "1234561")
	assert.Contains(t, readRow(page.Body, "口座番号"), "請求書から読み取り（確度 高）")
	assert.Empty(t, readRow(page.Body, "口座名義"), "the holder is not on the invoice")
	assert.NotContains(t, page.Body, "前回のお支払いから")

	// The journey from the file: the supplier matched; the buyer corrects the account
	// number and the holder by choosing the registered account.
	id := strings.TrimPrefix(file, "/payments/create/files/")
	require.Equal(t, http.StatusSeeOther, p.c.Get("/payments/add/invoiceinfo?file="+id).StatusCode)
	res := p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	acct := p.c.Get("/payments/add/account")
	assert.NotRegexp(t, `value="`+strconv.FormatInt(p.account.ID, 10)+`" checked`, acct.Body, "1234561 is no registered account")
	res = p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	form := invoiceForm(strconv.FormatInt(truth.Total, 10))
	res = p.c.Post("/payments/add/invoice", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/add/confirm")
	require.Equal(t, http.StatusOK, confirm.StatusCode, confirm.Body)
	res = p.submitAcknowledging(t, confirm) // the account differs from the invoice's, knowingly
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.True(t, strings.HasPrefix(res.Header.Get("Location"), "/payments/complete?id="), res.Header.Get("Location"))

	hs, err := webtest.Store().SupplierHistories(t.Context(), p.u.BuyerID)
	require.NoError(t, err)
	require.Len(t, hs, 1, "the payment taught the supplier's history")
	assert.Equal(t, p.supplier.ID, hs[0].SupplierID)
	assert.Equal(t, "1234567", hs[0].AccountNumber)
	assert.Equal(t, p.account.HolderName, hs[0].HolderName)
	assert.Equal(t, "T1180301018771", hs[0].RegistrationNumber)
	assert.Equal(t, []string{"account_number", "account_holder"}, []string(hs[0].Corrected))

	// The second invoice, misprinted and missing the same way.
	_, pdf = yamadaInvoice(t, 22)
	file, page = uploadAndRead(t, p.c, "請求書.pdf", pdf)
	number, holder := readRow(page.Body, "口座番号"), readRow(page.Body, "口座名義")
	assert.Contains(t, number, "1234567", "the number the buyer paid to")
	assert.Contains(t, number, "前回のお支払いから（確度 高）")
	assert.Contains(t, holder, p.account.HolderName)
	assert.Contains(t, holder, "前回のお支払いから（確度 高）")
	assert.Contains(t, readRow(page.Body, "登録番号"), "請求書と前回のお支払いで一致（確度 高）")
	assert.Contains(t, page.Body, "この取引先への前回のお支払いで使った内容です")
	m := matchSection(page.Body)
	assert.Contains(t, m, "1234567")
	assert.Contains(t, m, "銀行・支店・口座番号が一致しました。", "the remembered account finds the registered one")

	// The journey chooses the registered account and says where its fields came from.
	id = strings.TrimPrefix(file, "/payments/create/files/")
	require.Equal(t, http.StatusSeeOther, p.c.Get("/payments/add/invoiceinfo?file="+id).StatusCode)
	res = p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	acct = p.c.Get("/payments/add/account")
	assert.Regexp(t, `value="`+strconv.FormatInt(p.account.ID, 10)+`" checked`, acct.Body, "the remembered account is chosen")
	assert.Contains(t, acct.Body, "アップロードした請求書の振込先と一致した口座を選んでいます。")
	assert.Regexp(t, `口座番号</dt>\s*<dd class="summary-list__value"><span class="status-badge status-badge--neutral">前回のお支払いから（確度 高）`, acct.Body)
	assert.Regexp(t, `口座名義</dt>\s*<dd class="summary-list__value"><span class="status-badge status-badge--neutral">前回のお支払いから（確度 高）`, acct.Body)
	assert.Regexp(t, `金融機関</dt>\s*<dd class="summary-list__value"><span class="status-badge status-badge--neutral">請求書と前回のお支払いで一致（確度 高）`, acct.Body)
	res = p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	inv := p.c.Get("/payments/add/invoice")
	assert.Contains(t, inv.Body, "請求書と前回のお支払いで一致（確度 高）。内容をご確認ください。", "the registration number")
	assert.Contains(t, inv.Body, "請求書から読み取り（確度 高）。内容をご確認ください。", "the amount")

}

// placesInvoice is a plain page of 株式会社山田商事 (PNG, read by tesseract) whose payment
// date follows a label the rules do not know (ご決済予定), so a reading misses it.
func placesInvoice(t *testing.T, due time.Time) []byte {
	t.Helper()
	b, err := invoicegen.RenderText([]invoicegen.TextLine{
		{Text: "請求書", Pt: 22}, {Text: "テスト株式会社 御中", Pt: 12}, {Text: "株式会社山田商事", Pt: 12},
		{Text: "登録番号 T1180301018771", Pt: 11}, {Text: "ご請求金額 ¥125,400", Pt: 14},
		{Text: "ご決済予定 " + due.Format("2006年1月2日"), Pt: 11},
		{Text: "振込先 みずほ銀行 東京営業部 普通 1234567", Pt: 11},
	})
	require.NoError(t, err, "needs the font from the ocr-tools task")
	return b
}

// Issue 28, learn per supplier, the field positions: the buyer types the payment date the
// reading missed and pays; the payment learns where the supplier prints it, and the
// supplier's next invoice has its date read from there, shown as read from the invoice.
func TestSecondInvoiceOfASupplierIsReadWhereTheLastOnePrintedTheDate(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	_, dueISO := transferDay()
	due, err := time.Parse(time.DateOnly, dueISO)
	require.NoError(t, err)

	file, page := uploadAndRead(t, p.c, "請求書.png", placesInvoice(t, due))
	assert.Empty(t, readRow(page.Body, "お支払期限"), "the rules know no ご決済予定")
	assert.Contains(t, readRow(page.Body, "ご請求金額（税込）"), "125,400")

	id := strings.TrimPrefix(file, "/payments/create/files/")
	require.Equal(t, http.StatusSeeOther, p.c.Get("/payments/add/invoiceinfo?file="+id).StatusCode)
	res := p.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(p.supplier.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = p.c.Post("/payments/add/account", url.Values{"account": {strconv.FormatInt(p.account.ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = p.c.Post("/payments/add/invoice", invoiceForm("125400")) // the due date typed
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/add/confirm")
	require.Equal(t, http.StatusOK, confirm.StatusCode, confirm.Body)
	res = p.submitAcknowledging(t, confirm)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)

	hs, err := webtest.Store().SupplierHistories(t.Context(), p.u.BuyerID)
	require.NoError(t, err)
	require.Len(t, hs, 1)
	var places []struct {
		Field string `json:"field"` // invoiceread.Place's
	}
	require.NoError(t, json.Unmarshal(hs[0].Places, &places))
	var fields []string
	for _, pl := range places {
		fields = append(fields, pl.Field)
	}
	assert.Contains(t, fields, "due_date", "where the date typed was printed: %s", hs[0].Places)
	assert.Contains(t, fields, "total")

	next := due.AddDate(0, 1, 0)
	_, page = uploadAndRead(t, p.c, "請求書.png", placesInvoice(t, next))
	row := readRow(page.Body, "お支払期限")
	assert.Contains(t, row, next.Format(time.DateOnly), "read where the supplier prints it")
	assert.Contains(t, row, "請求書から読み取り")
}
