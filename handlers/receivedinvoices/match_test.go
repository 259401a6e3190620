package receivedinvoices_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
)

// The invoice's page matches the reading with the buyer's suppliers as the payment
// journey does; an invoice from a registered supplier asking for an account the buyer
// never paid it to is warned about before paying.
func TestReceivedInvoiceMatchesSuppliers(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	truth := invoicegen.New(61).Invoice()
	_, err := webtest.Store().CreateSupplier(context.Background(), u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: truth.IssuerName, NameKana: "トリヒキサキ", CorporateNumber: strings.TrimPrefix(truth.RegistrationNumber, "T")},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1111111", HolderName: "ﾄﾘﾋｷｻｷ"})
	require.NoError(t, err)
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	res := upload(t, c, "請求書.pdf", pdf)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	page := readPage(t, c, res.Header.Get("Location"))
	assert.Contains(t, page.Body, "登録取引先との照合")
	assert.Contains(t, page.Body, truth.IssuerName+"（")
	assert.Contains(t, page.Body, "登録済みの口座と異なります", "the invoice's account %s is not the registered 1111111", truth.AccountNumber)
}
