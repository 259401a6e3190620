package receivedinvoices_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// upload posts the plain form (no JavaScript) with one file.
func upload(t *testing.T, c *webtest.Client, name string, content []byte) webtest.Response {
	t.Helper()
	return c.PostFile("/receipt-invoices/upload", pay.InvoiceFileField, name, content)
}

var invoicePathRe = regexp.MustCompile(`^/receipt-invoices/(\d+)$`)

// readPage waits for the invoice's reading and answers its page.
func readPage(t *testing.T, c *webtest.Client, path string) webtest.Response {
	t.Helper()
	var page webtest.Response
	require.Eventually(t, func() bool {
		page = c.Get(path)
		return page.StatusCode == http.StatusOK && !strings.Contains(page.Body, "読み取っています")
	}, 60*time.Second, 200*time.Millisecond, "the OCR job finishes")
	return page
}

// The buyer's own upload, without JavaScript: refused files store nothing; a good one
// is listed as 新着 with what was read, opens on its page with its file and hash, is
// corrected (the earlier value kept in its history), found by the law's search and in
// the CSV index, marked not to be paid and back, and paid through the payment journey
// from its file. Another buyer sees none of it.
func TestReceivedInvoiceByUpload(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	page := c.Get("/receipt-invoices")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "新しく届いた請求書はありません。")
	assert.Contains(t, page.Body, `href="/receipt-invoices/upload"`)

	res := upload(t, c, "memo.txt", []byte("not an invoice"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	_, want := pay.CheckInvoiceFile("memo.txt", []byte("not an invoice"))
	webtest.AssertFieldError(t, res, pay.InvoiceFileField, want)

	truth := invoicegen.New(11).Invoice()
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	res = upload(t, c, "請求書（11月分）.pdf", pdf)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	loc := res.Header.Get("Location")
	m := invoicePathRe.FindStringSubmatch(loc)
	require.Len(t, m, 2, loc)

	assert.Contains(t, c.Get(loc).Body, "請求書を登録しました")
	page = readPage(t, c, loc)
	assert.Contains(t, page.Body, "新着")
	assert.Contains(t, page.Body, pay.Yen(truth.Total), "the total read")
	assert.Contains(t, page.Body, truth.RegistrationNumber)
	assert.Contains(t, page.Body, "請求書（11月分）.pdf")
	var sha string
	require.NoError(t, webtest.Store().DB.Get(&sha, `SELECT f.sha256 FROM received_invoices r JOIN invoice_files f ON f.id = r.file_id WHERE r.id = $1`, m[1]))
	assert.Contains(t, page.Body, sha, "the kept file's hash is shown")
	assert.Contains(t, page.Body, "削除できません")
	payHref := regexp.MustCompile(`href="(/payments/add/invoiceinfo\?file=\d+)"`).FindStringSubmatch(page.Body)
	require.Len(t, payHref, 2, "a new invoice is paid from its file")

	// The file as received.
	dl := c.Get(loc + "/file")
	require.Equal(t, http.StatusOK, dl.StatusCode)
	assert.Equal(t, string(pdf), dl.Body)
	assert.Contains(t, dl.Header.Get("Content-Disposition"), "attachment")

	// Listed under 新着 with its count on the tab and in the header.
	list := c.Get("/receipt-invoices")
	assert.Contains(t, list.Body, `href="`+loc+`"`)
	assert.Contains(t, list.Body, "新着（1）")
	assert.Contains(t, list.Body, `1<span class="visually-hidden">件の新着</span>`)

	// A correction: bad values are refused next to their fields and change nothing.
	saw := regexp.MustCompile(`name="saw" value="([^"]*)"`).FindStringSubmatch(page.Body)
	require.Len(t, saw, 2)
	sawJSON := strings.ReplaceAll(saw[1], "&#34;", `"`)
	bad := url.Values{"saw": {sawJSON}, "date": {"2026-02-30"}, "amount": {"-5"}, "registration_number": {"T1234567890123"}}
	res = c.Post(loc+"/correct", bad)
	webtest.AssertFieldError(t, res, "date", "日付を正しく")
	webtest.AssertFieldError(t, res, "amount", "1円以上")
	webtest.AssertFieldError(t, res, "registration_number", "T と13桁")
	good := url.Values{"saw": {sawJSON}, "date": {"2026-11-02"}, "amount": {"123,456"}, "counterparty": {"株式会社訂正後"}}
	res = c.Post(loc+"/correct", good)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = c.Get(loc)
	assert.Contains(t, page.Body, "訂正を保存しました")
	assert.Contains(t, page.Body, "¥123,456")
	assert.Contains(t, page.Body, "請求金額：（読取値） → ¥123,456", "the history keeps what was replaced")
	// The same correction again, from the page seen before it: refused, nothing written.
	res = c.Post(loc+"/correct", url.Values{"saw": {sawJSON}, "counterparty": {"別の名前"}})
	webtest.AssertFieldError(t, res, "date", "ほかの画面で訂正")

	// The law's search: date range, amount range and counterparty, combined; the CSV.
	for _, tc := range []struct {
		query string
		found bool
	}{
		{"from=2026-11-01&to=2026-11-30", true},
		{"from=2026-12-01", false},
		{"min=100000&max=200000", true},
		{"min=200000", false},
		{"counterparty=訂正後", true},
		{"from=2026-11-01&min=100000&counterparty=訂正後", true},
		{"from=2026-11-01&min=100000&counterparty=ほか", false},
	} {
		s := c.Get("/receipt-invoices/search?" + tc.query)
		require.Equal(t, http.StatusOK, s.StatusCode, tc.query)
		assert.Equal(t, tc.found, strings.Contains(s.Body, `href="`+loc+`"`), tc.query)
	}
	s := c.Get("/receipt-invoices/search?min=abc&from=2026-13-01")
	assert.Equal(t, http.StatusUnprocessableEntity, s.StatusCode)
	webtest.AssertFieldError(t, s, "min", "1円以上")
	webtest.AssertFieldError(t, s, "from", "日付を正しく")
	idx := c.Get("/receipt-invoices/search.csv?counterparty=" + url.QueryEscape("訂正後"))
	require.Equal(t, http.StatusOK, idx.StatusCode)
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(idx.Body, "\ufeff"))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2, "the header and the one hit")
	assert.Equal(t, []string{"2026-11-02", "123456", "株式会社訂正後"}, rows[1][1:4])
	assert.Equal(t, sha, rows[1][11])

	// Marked not to be paid: a reason is needed; then 支払不要, and back to 新着.
	res = c.Post(loc+"/mark", url.Values{"from": {"open"}, "disposition": {"not_to_pay"}})
	webtest.AssertFieldError(t, res, "reason", "理由を入力")
	res = c.Post(loc+"/mark", url.Values{"from": {"open"}, "disposition": {"not_to_pay"}, "reason": {"二重に届いた"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Contains(t, c.Get("/receipt-invoices/set-aside").Body, `href="`+loc+`"`)
	assert.NotContains(t, c.Get(loc).Body, `href="/payments/add/invoiceinfo`, "set aside: not paid from here")
	res = c.Post(loc+"/mark", url.Values{"from": {"open"}, "disposition": {"paid_elsewhere"}})
	webtest.AssertFieldError(t, res, "disposition", "ほかの画面で処理")
	res = c.Post(loc+"/mark", url.Values{"from": {"not_to_pay"}, "disposition": {"open"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = c.Get(loc)
	assert.Contains(t, page.Body, "「支払不要」にしました（理由：二重に届いた）")

	// Paying it is the payment journey from its file.
	journey := c.Get(payHref[1])
	if journey.StatusCode == http.StatusSeeOther {
		journey = c.Get(journey.Header.Get("Location"))
	}
	require.Equal(t, http.StatusOK, journey.StatusCode)
	assert.Contains(t, journey.Body, "支払申請", "the payment journey")
	assert.Contains(t, journey.Body, "アップロードした請求書の内容を読み取り、入力欄にあらかじめ入れています", "filled from the file")

	// Another buyer: nothing found, nothing changed.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	for _, p := range []string{loc, loc + "/file"} {
		assert.Equal(t, http.StatusNotFound, oc.Get(p).StatusCode, p)
	}
	assert.Equal(t, http.StatusNotFound, oc.Post(loc+"/mark", url.Values{"from": {"open"}, "disposition": {"paid_elsewhere"}}).StatusCode)
	assert.Equal(t, http.StatusNotFound, oc.Post(loc+"/correct", good).StatusCode)
	assert.NotContains(t, oc.Get("/receipt-invoices/search").Body, `href="`+loc+`"`)
	assert.NotContains(t, oc.Get("/receipt-invoices/search.csv").Body, "訂正後")
	assert.Equal(t, http.StatusNotFound, c.Get(fmt.Sprintf("/receipt-invoices/%d", 1<<40)).StatusCode)
}

// The pages without an invoice answer for a signed-in buyer and send a signed-out
// visitor to sign in.
func TestReceivedPagesNeedSignIn(t *testing.T) {
	env := webtest.New(t)
	c := env.Client(t)
	for _, p := range []string{"/receipt-invoices", "/receipt-invoices/search", "/receipt-invoices/upload", "/receipt-invoices/retention", "/receipt-invoices/search.csv"} {
		res := c.Get(p)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, p)
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"), p)
	}
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	c.SignIn(u.EmailAddress)
	for _, p := range []string{"/receipt-invoices", "/receipt-invoices/scheduled", "/receipt-invoices/paid", "/receipt-invoices/set-aside",
		"/receipt-invoices/search", "/receipt-invoices/upload", "/receipt-invoices/retention"} {
		res := c.Get(p)
		assert.Equal(t, http.StatusOK, res.StatusCode, p)
		assert.Contains(t, res.Body, `lang="ja"`, p)
	}
	assert.Contains(t, c.Get("/receipt-invoices/retention").Body, "事務処理規程")
}
