package securitysuite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// Receiving accounts and step-up (issue 24, businesses part 2): where a supplier's money
// goes is changed only by someone who proved it again, and an account that came with a
// card-payment request is paid only after an operator approved it.

var payoutSeq atomic.Int64

// uniqueCorporateNumber is a valid corporate number no other test uses: a request finds
// its customer by number, so a shared one would link another test's buyer.
func uniqueCorporateNumber(t *testing.T) string {
	t.Helper()
	base := fmt.Sprintf("9%05d%06d", time.Now().UnixNano()%100000, payoutSeq.Add(1)%1000000)
	d, ok := pay.CorporateCheckDigit(base)
	require.True(t, ok)
	return strconv.Itoa(d) + base
}

func payoutOperator(t *testing.T, env *webtest.Env, role string) store.Operator {
	t.Helper()
	secret, err := auth.NewTOTP("請求書カード払い", "op")
	require.NoError(t, err)
	created, err := env.App.Account.CreateOperator(context.Background(), account.NewOperatorInput{
		EmailAddress: fmt.Sprintf("payout-op-%d-%d@ops.test.example", payoutSeq.Add(1), time.Now().UnixNano()%1e6),
		Name:         "担当 振込", Password: "Operator-Pass-2026!", Roles: []string{role}, TOTPSecret: secret.Secret})
	require.NoError(t, err)
	return created.Operator
}

// A requester registers under the number of a company the customer already pays
// (approved supplier, account typed by the customer) and sends a request with its own
// receiving account. The account must not ride on the approved supplier: it is a new row
// waiting for approval, and no transfer file takes the payment until an operator
// approves it.
func TestPayoutsRequestersAccountWaitsForApproval(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	number := uniqueCorporateNumber(t)
	customer := webtest.NewBuyer(t, pay.Corporation, uniqueCorporateNumber(t))
	sup, err := webtest.Store().CreateSupplier(ctx, customer.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "本物商事株式会社", NameKana: "ホンモノショウジ", CorporateNumber: number},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ﾎﾝﾓﾉｼﾖｳｼﾞ(ｶ"})
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetSupplierStatus(ctx, customer.BuyerID, sup.ID, pay.SupplierApproved))

	attacker := webtest.NewBuyer(t, pay.Corporation, number)
	acct, err := webtest.Store().CreateBuyerAccount(ctx, attacker.BuyerID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: "9988776", HolderName: "ﾆｾﾓﾉ"})
	require.NoError(t, err)
	_, err = env.App.Requests.SendRequest(ctx, attacker.BuyerID, invoices.RequestSubmission{SubmitKey: "payout-attack", UserID: attacker.ID,
		AccountID: acct.ID, FeeBearer: pay.FeeByCustomer, Request: pay.RequestInput{CustomerName: "株式会社お客さま",
			CustomerEmail: customer.EmailAddress, CustomerCorporateNumber: customer.CorporateNumber, Amount: "50000",
			Deadline: pay.ISODate(time.Now().AddDate(0, 0, 30))}})
	require.NoError(t, err)

	accts, err := webtest.Store().SupplierAccounts(ctx, customer.BuyerID, sup.ID)
	require.NoError(t, err)
	var requesters, unapproved int
	for _, a := range accts {
		if a.AccountNumber == "9988776" {
			requesters++
			if !a.Approved() {
				unapproved++
			}
		}
	}
	record(t, "businesses", "a request linked to a customer who has an approved supplier of the requester's number",
		fmt.Sprintf("requester's account: %d new row, %d unapproved; supplier has %d accounts", requesters, unapproved, len(accts)),
		requesters == 1 && unapproved == 1 && len(accts) == 2)

	// The customer pays; screening completes (two operators); the card is captured.
	var paymentID int64
	require.NoError(t, webtest.Store().DB.Get(&paymentID, `SELECT payment_invoice_id FROM invoice_requests r JOIN invoices i ON i.id = r.invoice_id
		WHERE i.buyer_id = $1 AND i.submit_key = 'payout-attack'`, attacker.BuyerID))
	cc := env.Client(t)
	cc.SignIn(customer.EmailAddress)
	// The customer's supplier page says which account is waiting for the operators.
	supplierPage := cc.Get(fmt.Sprintf("/suppliers/%d", sup.ID))
	require.Equal(t, http.StatusOK, supplierPage.StatusCode)
	require.Contains(t, supplierPage.Body, "当社の確認が済むまで、この口座へのお振り込みはしません")
	res := env.PSP.AddCard(t, cc, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := webtest.Store().Cards(ctx, customer.BuyerID)
	require.NoError(t, err)
	_, err = env.App.Requests.PayRequest(ctx, customer.BuyerID, paymentID, "payout-pay", cards[0].ID)
	require.NoError(t, err)
	a, b := payoutOperator(t, env, pay.RoleScreening), payoutOperator(t, env, pay.RoleScreening)
	_, err = env.App.Screening.CheckPayment(ctx, a, paymentID)
	require.NoError(t, err)
	_, err = env.App.Screening.CompleteScreening(ctx, b, paymentID)
	require.NoError(t, err)
	env.Settle(t)
	pm, err := webtest.Store().Payment(ctx, customer.BuyerID, paymentID)
	require.NoError(t, err)
	require.Equal(t, pay.CardCaptured, pm.CardStatus)

	mover := payoutOperator(t, env, pay.RoleTransfers)
	filed := func() int {
		_, err := env.App.Transfers.MakeTransferFile(ctx, mover, *pm.TransferDate, env.App.Remitter)
		var fe pay.FieldErrors
		if err != nil && !errors.As(err, &fe) {
			require.NoError(t, err)
		}
		var n int
		require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM invoices WHERE id = $1 AND transfer_file_id IS NOT NULL`, paymentID))
		return n
	}
	before := filed()
	require.NoError(t, env.App.Screening.ApproveAccount(ctx, a, paymentID))
	after := filed()
	record(t, "businesses", "a transfer file made for that payment before and after the operators approve the account",
		fmt.Sprintf("%d of 1 filed before approval, %d after", before, after), before == 0 && after == 1)
}

// Adding a supplier's account without a fresh second factor, by the page and by the API,
// is refused and stores nothing; a code given 6 minutes ago is asked for again.
func TestPayoutsAccountChangesNeedAFreshFactor(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "確認商事株式会社", NameKana: "カクニンショウジ", CorporateNumber: uniqueCorporateNumber(t)}, nil)
	require.NoError(t, err)
	count := func() int {
		var n int
		require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM supplier_accounts WHERE buyer_id = $1`, u.BuyerID))
		return n
	}
	form := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"7654321"}, "holder_name": {"ﾔﾏﾀﾞ"}}
	page := fmt.Sprintf("/suppliers/%d/accounts/new", sup.ID)

	// The page, signed in with the password only.
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	pageStatus := c.Post(page, form).StatusCode

	// The API, signed in with the password only.
	body, _ := json.Marshal(map[string]any{"bank_code": "0001", "branch_code": "001", "account_type": 2, "account_number": "7654321", "holder_name": "ﾔﾏﾀﾞ"})
	call := func(tokens map[string]any, code string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, env.URL+fmt.Sprintf("/api/v1/suppliers/%d/accounts", sup.ID), bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokens["id_token"].(string))
		req.Header.Set("X-Access-Token", tokens["access_token"].(string))
		if code != "" {
			req.Header.Set(api.StepUpHeader, code)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		s, _ := out["status"].(string)
		return res.StatusCode, s
	}
	loginBody, _ := json.Marshal(map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	res, err := http.Post(env.URL+"/api/v1/login", "application/json", bytes.NewReader(loginBody))
	require.NoError(t, err)
	var tokens map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&tokens))
	res.Body.Close()
	apiStatus, apiError := call(tokens, "")
	record(t, "businesses", "adding a supplier account without a fresh second factor (page, API)",
		fmt.Sprintf("page %d, API %d %s; %d rows", pageStatus, apiStatus, apiError, count()),
		pageStatus == http.StatusUnprocessableEntity && apiStatus == http.StatusForbidden && apiError == "step_up_required" && count() == 0)

	// An authenticator code accepted 6 minutes ago no longer counts.
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer(webtest.SecretKey).Seal(key.Secret)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))
	u = webtest.ReloadUser(t, u)
	webtest.GiveFactor(t, u, time.Now().Add(-6*time.Minute))
	staleStatus, staleError := call(tokens, "")
	stale := count()
	code, err := totp.GenerateCode(key.Secret, time.Now())
	require.NoError(t, err)
	okStatus, _ := call(tokens, code)
	record(t, "businesses", "adding a supplier account with a second factor given 6 minutes ago",
		fmt.Sprintf("asked again: %d %s, %d rows; with a new code %d, %d row", staleStatus, staleError, stale, okStatus, count()),
		staleStatus == http.StatusForbidden && staleError == "step_up_required" && stale == 0 && okStatus == http.StatusCreated && count() == 1)
}

// Guessing the step-up code: each code takes 5 wrong entries (auth.CodeMaxAttempts),
// and the account's second-factor allowance (account.DefaultLimits, 15 in 15 minutes)
// ends the guessing with 429 and Retry-After; nothing is saved on the way.
func TestPayoutsStepUpCodeGuessingIsLimited(t *testing.T) {
	env := attackEnv(t, account.DefaultLimits)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "推測商事株式会社", NameKana: "スイソクショウジ", CorporateNumber: uniqueCorporateNumber(t)}, nil)
	require.NoError(t, err)
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	page := fmt.Sprintf("/suppliers/%d/accounts/new", sup.ID)
	require.Equal(t, http.StatusOK, c.Get(page+"?bank_code=0001&branch_code=001").StatusCode)
	code := env.WaitCode(t, u.EmailAddress)
	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	form := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"7654321"},
		"holder_name": {"ﾔﾏﾀﾞ"}, "step_up_code": {wrong}}
	firstLimited, retryAfter := 0, ""
	for i := 1; i <= 20; i++ {
		res := c.Post(page, form)
		if res.StatusCode == http.StatusTooManyRequests && firstLimited == 0 {
			firstLimited, retryAfter = i, res.Header.Get("Retry-After")
		}
	}
	// The right code, now, is refused too: the allowance is spent (and the code worn out).
	form.Set("step_up_code", code)
	after := c.Post(page, form).StatusCode
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM supplier_accounts WHERE buyer_id = $1`, u.BuyerID))
	record(t, "businesses", "20 wrong step-up codes for one account, then the right one",
		fmt.Sprintf("429 from try %d (Retry-After %ss); the right code after: %d; %d rows", firstLimited, retryAfter, after, n),
		firstLimited > 0 && firstLimited <= 16 && retryAfter != "" && after != http.StatusSeeOther && n == 0)
}
