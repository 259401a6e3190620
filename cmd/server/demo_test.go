package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/files"
	"cardpay/inbox"
	"cardpay/invoicefiles"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.RunThen(m, &db, removeServerBinary) }

// The demo data is what `task dev` shows: both buyers, the corporation's suppliers with
// their statuses and payments, and corporations to search. Starting twice changes nothing.
func TestSeedDemo(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := Config{DemoPassword: "demo password 123", SecretKey: "test-secret-key-for-the-demo-seed"}
	require.NoError(t, seedDemo(ctx, db.Store, cfg, logger))
	require.NoError(t, seedDemo(ctx, db.Store, cfg, logger), "a second start keeps the data")

	corp, err := db.Store.UserByEmail(ctx, "corp@demo.example")
	require.NoError(t, err)
	partner, err := db.Store.OAuthClient(ctx, DemoPartnerID)
	require.NoError(t, err, "the demo partner application")
	assert.True(t, partner.Public())

	// The console's demo operators: two screeners (dual control) and two administrators
	// (one proposes, the other approves), who sign in with the demo password and the printed authenticator secret.
	acct := &account.Service{Store: db.Store, Sealer: auth.NewSealer(cfg.SecretKey), Throttle: auth.DefaultThrottle}
	for _, email := range []string{"screening1@ops.demo.example", "screening2@ops.demo.example", "admin@ops.demo.example", "admin2@ops.demo.example"} {
		code, err := totp.GenerateCode(DemoOperatorSecret, time.Now())
		require.NoError(t, err)
		o, err := acct.SignInOperator(ctx, email, cfg.DemoPassword, code)
		require.NoError(t, err, email)
		assert.NotEmpty(t, o.Roles)
	}
	// A start with another demo password gives it to every operator (one hash, shared).
	other := cfg
	other.DemoPassword = "another demo password 456"
	require.NoError(t, seedDemo(ctx, db.Store, other, logger))
	for _, email := range []string{"screening1@ops.demo.example", "admin2@ops.demo.example"} {
		code, err := totp.GenerateCode(DemoOperatorSecret, time.Now())
		require.NoError(t, err)
		_, err = acct.SignInOperator(ctx, email, other.DemoPassword, code)
		require.NoError(t, err, email)
	}
	st, err := db.Store.Stats(ctx, corp.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 2, st.SuppliersEnableCount)
	assert.Equal(t, 1, st.SuppliersDisableCount)
	assert.Equal(t, 1, st.Payments.Reserved)
	assert.Equal(t, 1, st.Payments.History)
	assert.Equal(t, pay.CollectionCounts{Request: 2}, st.Collections, "two card-payment requests sent")

	list, _, err := db.Store.Suppliers(ctx, store.SupplierFilter{BuyerID: corp.BuyerID, Group: pay.SupplierEnable, Size: 10})
	require.NoError(t, err)
	for _, s := range list {
		accts, err := db.Store.SupplierAccounts(ctx, corp.BuyerID, s.ID)
		require.NoError(t, err)
		require.Len(t, accts, 1, s.Name)
		got, err := pay.NormalizeHolderName(accts[0].HolderName)
		require.NoError(t, err, s.Name)
		assert.Equal(t, accts[0].HolderName, got, "demo holder names are already in zengin form")
	}

	sole, err := db.Store.UserByEmail(ctx, "sole@demo.example")
	require.NoError(t, err)
	st, err = db.Store.Stats(ctx, sole.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, st.SuppliersEnableCount, "the sole proprietor's one supplier: the corporation that asked them to pay")
	assert.Equal(t, 1, st.Payments.Waiting, "the demo corporation's request waits for their card")

	found, err := db.Store.Corporations(ctx, "トヨタ", 5)
	require.NoError(t, err)
	require.Len(t, found, 1)
	for _, c := range demoCorporations {
		assert.True(t, pay.ValidCorporateNumber(c.CorporateNumber), c.Name)
	}
}

// The demo corporation's mailed invoice: a receiving address and one supplier's mail,
// taken through the inbound service; a second start adds nothing.
func TestSeedDemoMail(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	require.NoError(t, seedDemo(ctx, db.Store, Config{DemoPassword: "demo password 123", SecretKey: "test-secret-key-for-the-demo-seed"}, logger))
	svc := &inbox.Service{Store: db.Store, Files: &invoicefiles.Service{Store: db.Store, Files: &files.Local{Dir: t.TempDir()}},
		Domain: "inbox.localhost", AuthservID: "inbox.localhost", Logger: logger}
	require.NoError(t, seedDemoMail(ctx, db.Store, svc, logger))
	require.NoError(t, seedDemoMail(ctx, db.Store, svc, logger), "a second start keeps the data")

	corp, err := db.Store.UserByEmail(ctx, "corp@demo.example")
	require.NoError(t, err)
	_, err = db.Store.ReceivingAddress(ctx, corp.BuyerID)
	require.NoError(t, err)
	list, total, err := db.Store.ReceivedInvoices(ctx, store.ReceivedFilter{BuyerID: corp.BuyerID, Size: 10})
	require.NoError(t, err)
	require.Equal(t, 1, total, "one mailed invoice (needs the font from task ocr-tools)")
	assert.Equal(t, store.ReceivedByMail, list[0].Source)
	assert.Contains(t, list[0].Sender, "経理部")
	assert.Equal(t, "pass", list[0].AuthDMARC)
}
