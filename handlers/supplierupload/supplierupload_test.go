package supplierupload_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var linkRe = regexp.MustCompile(`http://localhost(/supplier-upload/[A-Za-z0-9_-]{43})`)

func newSupplier(t *testing.T, u store.User, name string) store.Supplier {
	t.Helper()
	s, err := webtest.Store().CreateSupplier(context.Background(), u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: name, NameKana: "トリヒキサキ", CorporateNumber: "1180301018771"}, nil)
	require.NoError(t, err)
	return s
}

// sendLink sends the supplier's upload link from its page and reads it from the mail.
func sendLink(t *testing.T, env *webtest.Env, c *webtest.Client, s store.Supplier, to string) string {
	t.Helper()
	res := c.Post(fmt.Sprintf("/suppliers/%d/upload-link", s.ID), url.Values{"email": {to}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	m := env.Mail.WaitFor(t, to, 10*time.Second)
	assert.Contains(t, m.Subject, "請求書アップロードのご案内")
	assert.Contains(t, m.Text, s.Name)
	found := linkRe.FindStringSubmatch(m.Text)
	require.NotNil(t, found, m.Text)
	return found[1]
}

// The supplier's upload link, without JavaScript: the buyer mails it from the supplier's
// page (a bad address refused at the field); the supplier, signed out, sees to whom it
// uploads, a wrong file is refused at the field, a PDF becomes the buyer's received
// invoice (not another buyer's) and the page counts it; a new link retires the old
// one, a revoked (はい / いいえ) or expired link answers 410 and keeps nothing, an unknown
// one 404; another buyer can neither send nor revoke a link for this supplier.
func TestSupplierUploadLink(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	s := newSupplier(t, u, "株式会社リンク商会")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	page := c.Get(fmt.Sprintf("/suppliers/%d", s.ID))
	assert.Contains(t, page.Body, "請求書アップロード用リンク")
	res := c.Post(fmt.Sprintf("/suppliers/%d/upload-link", s.ID), url.Values{"email": {"keiri@@link"}})
	webtest.AssertFieldError(t, res, "email", "メールアドレスを正しい形式で入力してください（例：name@example.co.jp）")
	path := sendLink(t, env, c, s, "keiri@link-shokai.example")
	page = c.Get(fmt.Sprintf("/suppliers/%d", s.ID))
	assert.Contains(t, page.Body, "keiri@link-shokai.example")
	assert.Contains(t, page.Body, "0件")

	sup := env.Client(t) // the supplier, signed out
	up := sup.Get(path)
	require.Equal(t, http.StatusOK, up.StatusCode)
	assert.Contains(t, up.Body, "テスト商事株式会社", "to whom")
	assert.Contains(t, up.Body, "株式会社リンク商会", "from whom")
	res = sup.PostFile(path, pay.InvoiceFileField, "memo.txt", []byte("not an invoice"))
	_, want := pay.CheckInvoiceFile("memo.txt", []byte("not an invoice"))
	webtest.AssertFieldError(t, res, pay.InvoiceFileField, want)
	pdf, err := invoicegen.RenderPDF(invoicegen.New(55).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	res = sup.PostFile(path, pay.InvoiceFileField, "請求書_リンク.pdf", pdf)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Contains(t, sup.Get(path).Body, "「請求書_リンク.pdf」をテスト商事株式会社にお届けしました。")

	list, _, err := webtest.Store().ReceivedInvoices(context.Background(), store.ReceivedFilter{BuyerID: u.BuyerID, Size: 10})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, store.ReceivedBySupplierLink, list[0].Source)
	assert.Equal(t, "株式会社リンク商会 <keiri@link-shokai.example>", list[0].Sender)
	assert.Contains(t, c.Get("/receipt-invoices").Body, "取引先のアップロード")
	theirs, _, err := webtest.Store().ReceivedInvoices(context.Background(), store.ReceivedFilter{BuyerID: other.BuyerID, Size: 10})
	require.NoError(t, err)
	assert.Empty(t, theirs, "to this buyer only")
	assert.Contains(t, c.Get(fmt.Sprintf("/suppliers/%d", s.ID)).Body, "1件")

	// Another buyer: neither sends nor revokes a link for this supplier.
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	assert.Equal(t, http.StatusNotFound, oc.Post(fmt.Sprintf("/suppliers/%d/upload-link", s.ID), url.Values{"email": {"x@evil.example"}}).StatusCode)
	assert.Equal(t, http.StatusNotFound, oc.Post(fmt.Sprintf("/suppliers/%d/upload-link/revoke", s.ID), nil).StatusCode)
	assert.Equal(t, http.StatusOK, sup.Get(path).StatusCode, "still working")

	// A new link retires the old one.
	second := sendLink(t, env, c, s, "keiri2@link-shokai.example")
	gone := sup.Get(path)
	assert.Equal(t, http.StatusGone, gone.StatusCode)
	assert.Contains(t, gone.Body, "無効になっています")
	res = sup.PostFile(path, pay.InvoiceFileField, "again.pdf", pdf)
	assert.Equal(t, http.StatusGone, res.StatusCode)

	// Revoked after はい / いいえ.
	confirm := c.Get(fmt.Sprintf("/suppliers/%d/upload-link/revoke", s.ID))
	assert.Contains(t, confirm.Body, "アップロード用リンクを無効にしますか？")
	assert.Contains(t, confirm.Body, ">いいえ</a>")
	require.Equal(t, http.StatusSeeOther, c.Post(fmt.Sprintf("/suppliers/%d/upload-link/revoke", s.ID), nil).StatusCode)
	assert.Equal(t, http.StatusGone, sup.Get(second).StatusCode)

	// Expired.
	third := sendLink(t, env, c, s, "keiri3@link-shokai.example")
	_, err = webtest.Store().DB.Exec(`UPDATE supplier_upload_links SET created_at = now() - interval '61 days', expires_at = now() - interval '1 day'
		WHERE buyer_id = $1 AND revoked_at IS NULL`, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, http.StatusGone, sup.Get(third).StatusCode)
	res = sup.PostFile(third, pay.InvoiceFileField, "late.pdf", pdf)
	assert.Equal(t, http.StatusGone, res.StatusCode)
	assert.Contains(t, c.Get(fmt.Sprintf("/suppliers/%d", s.ID)).Body, "期限切れ")

	list, _, err = webtest.Store().ReceivedInvoices(context.Background(), store.ReceivedFilter{BuyerID: u.BuyerID, Size: 10})
	require.NoError(t, err)
	assert.Len(t, list, 1, "nothing kept through a retired, revoked or expired link")
	assert.Equal(t, http.StatusNotFound, sup.Get("/supplier-upload/"+strings.Repeat("A", 43)).StatusCode)
}

// Uploads through one link are limited (account.ActSupplierUpload, per link): past the
// limit the page answers 429 and keeps nothing.
func TestSupplierUploadLinkIsRateLimited(t *testing.T) {
	env := webtest.New(t, func(d *web.Deps) {
		d.Account.Limits = account.Limits{account.ActSupplierUpload + ".target": {N: 1, Window: time.Hour}}
	})
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	path := sendLink(t, env, c, newSupplier(t, u, "株式会社制限商会"), "keiri@seigen.example")
	sup := env.Client(t)
	pdf, err := invoicegen.RenderPDF(invoicegen.New(56).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, sup.PostFile(path, pay.InvoiceFileField, "1.pdf", pdf).StatusCode)
	res := sup.PostFile(path, pay.InvoiceFileField, "2.pdf", pdf)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Contains(t, res.Body, `id="`+pay.InvoiceFileField+`-error"`, "the limiter's words at the field")
	list, _, err := webtest.Store().ReceivedInvoices(context.Background(), store.ReceivedFilter{BuyerID: u.BuyerID, Size: 10})
	require.NoError(t, err)
	assert.Len(t, list, 1, "nothing kept past the limit")
}

// Mailing links is limited per buyer (account.ActUploadLink): past it, 429 at the field.
func TestUploadLinkMailsAreRateLimited(t *testing.T) {
	limited := webtest.New(t, func(d *web.Deps) {
		d.Account.Limits = account.Limits{account.ActUploadLink + ".target": {N: 1, Window: time.Hour}}
	})
	v := webtest.NewBuyer(t, pay.Corporation, "")
	vc := limited.Client(t)
	vc.SignIn(v.EmailAddress)
	s := newSupplier(t, v, "株式会社制限二")
	sendLink(t, limited, vc, s, "a@seigen.example")
	res := vc.Post(fmt.Sprintf("/suppliers/%d/upload-link", s.ID), url.Values{"email": {"b@seigen.example"}})
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.Contains(t, res.Body, `id="email-error"`)
}
