package receivedinvoices_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

var addressRe = regexp.MustCompile(`<code id="receiving-address">([a-z0-9]+)@` + regexp.QuoteMeta(webtest.InboundMailDomain) + `</code>`)

// The receiving address, without JavaScript: issued on request, shown, renewed after
// a はい / いいえ question (the old one retired), each buyer its own; the log lists the
// mails that reached it, with what was refused and why.
func TestReceivingAddressPage(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	other := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)

	page := c.Get("/receipt-invoices")
	assert.Contains(t, page.Body, `href="/receipt-invoices/address"`, "the lists lead to it")
	page = c.Get("/receipt-invoices/address")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "アドレスを発行する")
	assert.False(t, addressRe.MatchString(page.Body))
	assert.Contains(t, page.Body, "まだメールは届いていません。")

	res := c.Post("/receipt-invoices/address/renew", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page = c.Get("/receipt-invoices/address")
	m := addressRe.FindStringSubmatch(page.Body)
	require.NotNil(t, m, page.Body)
	first := m[1]

	confirm := c.Get("/receipt-invoices/address/renew")
	assert.Contains(t, confirm.Body, "受付メールアドレスを変更しますか？")
	assert.Contains(t, confirm.Body, ">いいえ</a>")
	c.Post("/receipt-invoices/address/renew", nil)
	m = addressRe.FindStringSubmatch(c.Get("/receipt-invoices/address").Body)
	require.NotNil(t, m)
	assert.NotEqual(t, first, m[1], "a new address")
	_, err := webtest.Store().ReceivingAddressByLocalPart(context.Background(), first)
	assert.ErrorIs(t, err, store.ErrNotFound, "the old one receives nothing")

	// Another buyer sees its own page, without this buyer's address.
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	assert.NotContains(t, oc.Get("/receipt-invoices/address").Body, m[1])

	// The log: a mail with one file taken and one refused.
	a, err := webtest.Store().ReceivingAddress(context.Background(), u.BuyerID)
	require.NoError(t, err)
	_, err = webtest.Store().LogInboundMail(context.Background(), store.NewInboundMail{InboundMail: store.InboundMail{
		BuyerID: u.BuyerID, AddressID: a.ID, FromAddress: "keiri@supplier.example", FromName: "山田商店", Subject: "11月分のご請求",
		Outcome: "partly", Attachments: 2, Accepted: 1,
	}, Refused: []store.InboundRefusal{{Name: "locked.pdf", Reason: "パスワードまたは暗号化で保護された PDF は受け付けられません。"}}}, time.Now())
	require.NoError(t, err)
	page = c.Get("/receipt-invoices/address")
	assert.Contains(t, page.Body, "山田商店 &lt;keiri@supplier.example&gt;")
	assert.Contains(t, page.Body, "11月分のご請求")
	assert.Contains(t, page.Body, "1件を受け付け、1件を受け付けませんでした")
	assert.Contains(t, page.Body, "locked.pdf：パスワードまたは暗号化で保護された PDF")
	assert.NotContains(t, oc.Get("/receipt-invoices/address").Body, "11月分のご請求", "another buyer's log is not shown")
}
