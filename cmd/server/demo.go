package main

import (
	"time"

	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/calendar"
	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
)

// The demo buyers every development start makes sure of: one corporation and one sole
// proprietor, so both menus (with and without collections) can be tried at once.
var demoBuyers = []store.NewBuyer{
	{
		BusinessForm: pay.Corporation, CorporateName: "デモ商事株式会社", CorporateNumber: "7000012050002",
		EmailAddress: "corp@demo.example", LastName: "山田", FirstName: "太郎", PhoneNumber: "0312345678",
		TermsVersion: account.TermsVersion,
	},
	{
		BusinessForm: pay.SoleProprietor, BusinessName: "デモ工房", EmailAddress: "sole@demo.example",
		LastName: "佐藤", FirstName: "花子", PhoneNumber: "09012345678", TermsVersion: account.TermsVersion,
	},
}

var demoNotifications = []struct{ title, body string }{
	{"サービスへようこそ", "請求書カード払いをご利用いただきありがとうございます。まずは取引先の登録から始めましょう。"},
	{"年末年始の振込について", "12月31日から1月3日は銀行休業日のため、振込日に指定できません。"},
}

// demoCorporations stand in for the National Tax Agency registry in development (without
// NTA_APP_ID), so 法人名検索 finds something. The first four are real registry entries;
// the last two are invented, with valid check digits.
var demoCorporations = []store.Corporation{
	{CorporateNumber: "1180301018771", Name: "トヨタ自動車株式会社", NameKana: "トヨタジドウシャ", Address: "愛知県豊田市トヨタ町１番地"},
	{CorporateNumber: "5010401067252", Name: "ソニーグループ株式会社", NameKana: "ソニーグループ", Address: "東京都港区港南１丁目７－１"},
	{CorporateNumber: "7010001008844", Name: "株式会社日立製作所", NameKana: "ヒタチセイサクショ", Address: "東京都千代田区丸の内１丁目６－６"},
	{CorporateNumber: "1010001067912", Name: "株式会社ＮＴＴドコモ", NameKana: "エヌティティドコモ", Address: "東京都千代田区永田町２丁目１１－１"},
	{CorporateNumber: "2010401099991", Name: "山田商事株式会社", NameKana: "ヤマダショウジ", Address: "東京都港区芝公園４丁目２－８"},
	{CorporateNumber: "4180001099993", Name: "株式会社さくら製作所", NameKana: "サクラセイサクショ", Address: "愛知県名古屋市中区栄３丁目１－１"},
}

// demoSuppliers are the corporation's suppliers: one approved with a finished and a
// reserved payment (its history, and a delete that is refused), one waiting for the
// operators, one rejected.
var demoSuppliers = []struct {
	in       pay.SupplierInput
	acct     store.AccountFields
	status   pay.SupplierStatus
	payments []pay.ExaminationStatus
}{
	{
		pay.SupplierInput{BusinessForm: pay.Corporation, Name: "山田商事株式会社", NameKana: "ヤマダショウジ", CorporateNumber: "2010401099991"},
		store.AccountFields{BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ"},
		pay.SupplierApproved, []pay.ExaminationStatus{pay.TransferCompleted, pay.InProgressExaminationCompleted},
	},
	{
		pay.SupplierInput{BusinessForm: pay.SoleProprietor, Name: "鈴木　一郎", NameKana: "スズキ　イチロウ", BusinessName: "鈴木デザイン事務所"},
		store.AccountFields{BankCode: "9900", BankName: "ゆうちょ銀行", BranchCode: "018", BranchName: "〇一八", AccountType: pay.AccountOrdinary, AccountNumber: "7654321", HolderName: "ｽｽﾞｷ ｲﾁﾛｳ"},
		pay.SupplierUnapproved, []pay.ExaminationStatus{pay.InProgress, pay.InProgressExaminationChecked},
	},
	{
		pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社さくら製作所", NameKana: "サクラセイサクショ", CorporateNumber: "4180001099993"},
		store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行", BranchCode: "001", BranchName: "本店", AccountType: pay.AccountCurrent, AccountNumber: "0001111", HolderName: "ｶ)ｻｸﾗｾｲｻｸｼﾖ"},
		pay.SupplierRejected, nil,
	},
}

// seedSuppliers gives a new demo corporation its suppliers and payments.
func seedSuppliers(ctx context.Context, st *store.Store, buyerID int64) error {
	for i, d := range demoSuppliers {
		acct := d.acct
		s, err := st.CreateSupplier(ctx, buyerID, d.in, &acct)
		if err != nil {
			return fmt.Errorf("demo supplier %s: %w", d.in.Name, err)
		}
		if err := st.SetSupplierStatus(ctx, buyerID, s.ID, d.status); err != nil {
			return err
		}
		accts, err := st.SupplierAccounts(ctx, buyerID, s.ID)
		if err != nil {
			return err
		}
		for j, status := range d.payments {
			amount := int64(110000 * (i + j + 1))
			transfer := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 7*(j+1))
			if status == pay.TransferCompleted {
				transfer = calendar.AddBankDays(time.Now().AddDate(0, 0, -20), 0)
			}
			due := transfer.AddDate(0, 0, 3)
			id, err := st.CreateInvoice(ctx, buyerID, store.NewInvoice{SupplierID: s.ID, AccountID: &accts[0].ID,
				InvoiceType: pay.InvoicePayment, ExaminationStatus: status, Amount: amount, Fee: pay.Fee(amount, pay.DefaultFeeBasisPoints),
				TransferDate: &transfer, DueDate: &due, InvoiceNumber: fmt.Sprintf("DEMO-%03d", i*10+j+1)})
			if err != nil {
				return err
			}
			// The second supplier's first payment was sent back: the buyer has something to correct.
			if i == 1 && j == 0 {
				if _, err := st.Transition(ctx, buyerID, id, pay.ActSendBack, "operator:demo",
					"請求書に記載の振込先口座と、入力された口座番号が異なります。請求書をご確認のうえ、修正して再申請してください。", time.Now(), nil); err != nil {
					return err
				}
			}
		}
	}
	// A promotion code to try on the confirm page.
	return st.CreatePromotion(ctx, pay.Promotion{Code: "WELCOME2026", DiscountBasisPoints: 100,
		ValidFrom: time.Now().AddDate(0, 0, -1), ValidTo: time.Now().AddDate(1, 0, 0)})
}

// seedRequests gives the demo corporation a receiving account and two card-payment
// requests: one its customer has not taken yet (依頼中, 購入者未登録) and one to the demo
// sole proprietor, waiting in their 支払待ち. No mail goes out for demo requests.
func seedRequests(ctx context.Context, st *store.Store, corpID, soleID int64) error {
	acct, err := st.CreateBuyerAccount(ctx, corpID, store.AccountFields{BankCode: "0005", BankName: "三菱ＵＦＪ銀行",
		BranchCode: "001", BranchName: "本店", AccountType: pay.AccountOrdinary, AccountNumber: "1357913", HolderName: "ﾃﾞﾓｼﾖｳｼﾞ(ｶ"})
	if err != nil {
		return fmt.Errorf("demo receiving account: %w", err)
	}
	deadline := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 14)
	for i, c := range []struct{ name, email string }{
		{"株式会社ひかり商会", "keiri@hikari.demo.example"},
		{"デモ工房", "sole@demo.example"},
	} {
		key, hash, err := pay.NewRequestKey()
		if err != nil {
			return err
		}
		amount := int64(88000 * (i + 1))
		r, _, err := st.SendRequest(ctx, store.NewRequest{RequesterID: corpID, SubmitKey: fmt.Sprintf("demo-request-%d", i+1),
			Request: pay.CheckedRequest{CustomerName: c.name, CustomerEmail: c.email, Amount: amount,
				InvoiceNumber: fmt.Sprintf("REQ-%03d", i+1), Deadline: deadline, Message: "いつもお世話になっております。今月分のご請求です。"},
			Fee: pay.Fee(amount, pay.DefaultFeeBasisPoints), FeeBasisPoints: pay.DefaultFeeBasisPoints, FeeBearer: pay.FeeByCustomer,
			AccountID: acct.ID, KeyHash: hash}, time.Now())
		if err != nil {
			return fmt.Errorf("demo request %d: %w", i+1, err)
		}
		if c.email == "sole@demo.example" {
			if _, err := st.UseRequestKey(ctx, pay.HashRequestKey(key), soleID, func(store.RequestKey) error { return nil }, time.Now()); err != nil {
				return fmt.Errorf("demo request %d: %w", r.ID, err)
			}
		}
	}
	return nil
}

// seedDemo creates the demo buyers if missing and sets their password to DEMO_PASSWORD,
// or to a new random one that it prints, so the password is always known to whoever
// started the app.
func seedDemo(ctx context.Context, st *store.Store, cfg Config, logger *slog.Logger) error {
	password := cfg.DemoPassword
	if password == "" {
		password = randomPassword()
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	created := map[string]int64{}
	for _, nb := range demoBuyers {
		u, err := st.UserByEmail(ctx, nb.EmailAddress)
		switch {
		case errors.Is(err, store.ErrNotFound):
			nb.PasswordHash = hash
			if u, err = st.CreateBuyer(ctx, nb); err != nil {
				return fmt.Errorf("demo buyer %s: %w", nb.EmailAddress, err)
			}
			created[nb.EmailAddress] = u.BuyerID
			for _, n := range demoNotifications {
				if _, err := st.CreateNotification(ctx, u.BuyerID, n.title, n.body); err != nil {
					return err
				}
			}
			if nb.BusinessForm == pay.Corporation {
				if err := seedSuppliers(ctx, st, u.BuyerID); err != nil {
					return err
				}
			}
		case err != nil:
			return err
		default:
			if err := st.SetPasswordHash(ctx, u.BuyerID, u.ID, hash); err != nil {
				return err
			}
		}
	}
	if corp, sole := created["corp@demo.example"], created["sole@demo.example"]; corp != 0 && sole != 0 {
		if err := seedRequests(ctx, st, corp, sole); err != nil {
			return err
		}
	}
	if err := st.SaveCorporations(ctx, demoCorporations); err != nil {
		return err
	}
	if err := seedDemoPartner(ctx, st); err != nil {
		return err
	}
	// Operators need 12 characters: the demo password is padded for them.
	if err := seedOperators(ctx, st, cfg, password+strings.Repeat("0", max(0, 12-len(password)))); err != nil {
		return err
	}
	logger.Info("demo accounts ready")
	fmt.Printf("demo accounts: corp@demo.example (法人), sole@demo.example (個人事業主) — password: %s\n", password)
	return nil
}

func randomPassword() string {
	const letters = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

// DemoPartnerID is the demo partner application (cmd/partnerdemo's default client): a
// public client (PKCE, no secret) with every scope, returning to the example's listener
// and to the browser tests' callback.
const DemoPartnerID = "demo-accounting"

func seedDemoPartner(ctx context.Context, st *store.Store) error {
	if _, err := st.OAuthClient(ctx, DemoPartnerID); err == nil || !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var scopes []string
	for _, s := range oauth.Scopes {
		scopes = append(scopes, string(s))
	}
	return st.CreateOAuthClient(ctx, store.OAuthClient{ID: DemoPartnerID, Name: "デモ会計クラウド", LogoText: "デモ",
		RedirectURIs: []string{"http://127.0.0.1:8765/callback", "http://127.0.0.1:9/callback"}, Scopes: scopes})
}
