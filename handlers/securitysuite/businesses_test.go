package securitysuite_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/calendar"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/nta"
	"cardpay/pay"
	"cardpay/store"
)

// The businesses rows (issue 24): registering under another company's public corporate
// number. Each registration goes through the pages, as a visitor would: sign-up, code,
// the registration form, its confirmation.

var corpSeq atomic.Int64

// freshCorporateNumber is a valid corporate number no other test uses.
func freshCorporateNumber(t *testing.T) string {
	t.Helper()
	base := fmt.Sprintf("%012d", 300000000000+time.Now().UnixNano()%1e8*100+corpSeq.Add(1)%100)
	d, ok := pay.CorporateCheckDigit(base)
	require.True(t, ok)
	return strconv.Itoa(d) + base
}

// corporationForm is a complete registration of a corporation.
func corporationForm(name, number, prefecture string) url.Values {
	return url.Values{
		"step": {"details"}, "corporate_name": {name}, "corporate_name_kana": {"ホンモノコウギョウ"},
		"corporate_number": {number}, "business_category": {"I"}, "postal_code": {"1000001"},
		"address_state": {prefecture}, "address_city": {"千代田区"}, "address_street": {"千代田1-1"},
		"representative_last_name": {"山田"}, "representative_first_name": {"太郎"},
		"representative_last_name_kana": {"ヤマダ"}, "representative_first_name_kana": {"タロウ"},
		"representative_birthday": {"1980-04-01"}, "representative_postal_code": {"0600000"},
		"representative_address_state": {"北海道"}, "representative_address_city": {"札幌市中央区"},
		"representative_address_street": {"北1条西2丁目"}, "representative_phone_number": {"011-123-4567"},
		"user_last_name": {"佐藤"}, "user_first_name": {"花子"}, "phone_number": {"090-1234-5678"},
	}
}

// registerCorporation signs up a new address and registers form; it answers the final
// confirmation's response and the address.
func registerCorporation(t *testing.T, env *webtest.Env, form url.Values) (webtest.Response, string) {
	t.Helper()
	email := webtest.SignupEmail(t)
	c := webtest.VerifiedClient(t, env, email)
	res := c.Post("/registration", url.Values{"step": {"business_form"}, "business_form": {"1"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Post("/registration", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration/confirm", res.Header.Get("Location"))
	return c.Post("/registration/confirm", nil), email
}

func buyersWithNumber(t *testing.T, number string) int {
	t.Helper()
	var n int
	require.NoError(t, webtest.Store().DB.Get(&n, `SELECT count(*) FROM buyers WHERE corporate_number = $1`, number))
	return n
}

func reviewOfAddress(t *testing.T, email string) (pay.BuyerReview, string, store.User) {
	t.Helper()
	u, err := webtest.Store().UserByEmail(context.Background(), email)
	require.NoError(t, err)
	var reason string
	require.NoError(t, webtest.Store().DB.Get(&reason, `SELECT review_reason FROM buyers WHERE id = $1`, u.BuyerID))
	return u.ReviewStatus, reason, u
}

func TestBusinessesAnotherCompanysNumberAndTheHolderIsTold(t *testing.T) {
	env := webtest.New(t)
	number := freshCorporateNumber(t)
	require.NoError(t, webtest.Store().SaveCorporations(context.Background(), []store.Corporation{{CorporateNumber: number,
		Name: "本物工業株式会社", NameKana: "ホンモノコウギョウ", Address: "東京都千代田区千代田１－１"}}))

	// Another company's number under the impostor's own name, then in the wrong prefecture.
	attempts := []struct {
		form         url.Values
		field, label string
	}{
		{corporationForm("なりすまし商事株式会社", number, "東京都"), "corporate_name", pay.MsgRegistryName},
		{corporationForm("本物工業株式会社", number, "大阪府"), "address_state", pay.MsgRegistryPrefecture},
	}
	refused := 0
	for _, a := range attempts {
		res, _ := registerCorporation(t, env, a.form)
		if res.StatusCode == http.StatusUnprocessableEntity && strings.Contains(res.Body, `id="`+a.field+`-error"`) &&
			strings.Contains(res.Body, a.label) {
			refused++
		}
	}
	created := buyersWithNumber(t, number)
	record(t, "businesses", "registration with another company's corporate number and a wrong name (or prefecture)",
		fmt.Sprintf("%d attempts → %d refused on the field, %d buyers created", len(attempts), refused, created),
		refused == len(attempts) && created == 0)

	// The real company, typed the way people type it, is registered and active.
	res, holder := registerCorporation(t, env, corporationForm("（株）本物工業", number, "東京都"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	st, _, _ := reviewOfAddress(t, holder)
	require.Equal(t, pay.BuyerActive, st)

	// A second claim of the number, with the right name: held, and the holder mailed.
	res, second := registerCorporation(t, env, corporationForm("本物工業株式会社", number, "東京都"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	st, reason, _ := reviewOfAddress(t, second)
	env.Mail.WaitFor(t, holder, 5*time.Second)
	env.Settle(t)
	mails := 0
	for _, m := range env.Mail.Messages() {
		if strings.EqualFold(m.To, holder) && strings.Contains(m.Subject, "法人番号での新規登録") {
			mails++
		}
	}
	record(t, "businesses", "second registration claiming a number an active buyer holds",
		fmt.Sprintf("2nd claim → %s (%s); first holder mailed %d×", st, reason, mails),
		st == pay.BuyerHeld && reason == pay.HoldNumberTaken && mails == 1)
}

func TestBusinessesUnknownNumberIsHeldAndPaysNothing(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	number := freshCorporateNumber(t) // valid check digit, in no registry
	res, email := registerCorporation(t, env, corporationForm("幽霊商事株式会社", number, "東京都"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	st, reason, u := reviewOfAddress(t, email)

	// The held buyer signs in, sees why, and tries to pay with a saved card.
	c := env.Client(t)
	res = c.Post("/signin", url.Values{"email_address": {email}, "password": {webtest.SignupPassword}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	banner := strings.Contains(c.Get("/myaccount").Body, "アカウントの確認中です")
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation,
		Name: "株式会社山田商事", NameKana: "カブシキガイシャヤマダショウジ", CorporateNumber: "1180301018771"},
		&store.AccountFields{BankCode: "0001", BankName: "みずほ", BranchCode: "001", BranchName: "東京営業部",
			AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	res = env.PSP.AddCard(t, c, "4111111111111111")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	cards, err := webtest.Store().Cards(ctx, u.BuyerID)
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	d := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 10)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, 1)
	}
	const tries = 3
	refused := 0
	for i := range tries {
		_, err := env.App.Payments.Submit(ctx, u.BuyerID, invoices.Submission{SubmitKey: fmt.Sprintf("held-%d-%d", u.ID, i),
			UserID: u.ID, SupplierID: sup.ID, AccountID: accts[0].ID, CardID: cards[0].ID,
			Invoice: pay.InvoiceInput{Amount: "100000", DueDate: pay.ISODate(d.AddDate(0, 0, 5)), TransferDate: pay.ISODate(d), InvoiceNumber: "INV-1"}})
		if errs, ok := err.(pay.FieldErrors); ok && errs.For("card_id") == pay.MsgBuyerHeld {
			refused++
		}
	}
	var payments int
	require.NoError(t, webtest.Store().DB.Get(&payments, `SELECT count(*) FROM invoices WHERE buyer_id = $1`, u.BuyerID))
	record(t, "businesses", "registration with a number the registry does not know",
		fmt.Sprintf("→ %s (%s), banner %v; %d submissions → %d refused, %d payments", st, reason, banner, tries, refused, payments),
		st == pay.BuyerHeld && reason == pay.HoldRegistryUnknown && banner && refused == tries && payments == 0)
}

func TestBusinessesRegistryDownIsHeld(t *testing.T) {
	var calls atomic.Int64
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "503,サービス停止中", http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	env := webtest.New(t, func(d *web.Deps) {
		d.Corporations = &account.Corporations{Store: d.Store, Logger: d.Logger,
			Registry: nta.New(nta.Config{AppID: "test-app-id", BaseURL: down.URL})}
	})
	res, email := registerCorporation(t, env, corporationForm("停止中商事株式会社", freshCorporateNumber(t), "東京都"))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	st, reason, _ := reviewOfAddress(t, email)
	record(t, "businesses", "registration while the NTA registry is down",
		fmt.Sprintf("NTA answers 503 (%d calls) → %s (%s)", calls.Load(), st, reason),
		calls.Load() >= 1 && st == pay.BuyerHeld && reason == pay.HoldRegistryUnavailable)
}
