package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"

	"cardpay/account"
	"cardpay/auth"
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
	for _, nb := range demoBuyers {
		u, err := st.UserByEmail(ctx, nb.EmailAddress)
		switch {
		case errors.Is(err, store.ErrNotFound):
			nb.PasswordHash = hash
			if u, err = st.CreateBuyer(ctx, nb); err != nil {
				return fmt.Errorf("demo buyer %s: %w", nb.EmailAddress, err)
			}
			for _, n := range demoNotifications {
				if _, err := st.CreateNotification(ctx, u.BuyerID, n.title, n.body); err != nil {
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
