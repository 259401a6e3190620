package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/cards"
	"cardpay/invoices"
	"cardpay/oauth"
)

// The job table's kinds are the values stored in job rows: existing databases carry
// them, so a renamed constant keeps its value. Each kind is there once with a handler
// (a second entry would silently replace the first in the runner).
func TestJobTable(t *testing.T) {
	table := jobTable(db.Store, nil, &account.Service{Store: db.Store}, &account.Corporations{Store: db.Store}, nil, &cards.Service{Store: db.Store}, invoices.New(invoices.Config{Store: db.Store}), &oauth.Webhooks{})
	var kinds []string
	for _, j := range table {
		require.NotNil(t, j.run, j.kind)
		kinds = append(kinds, j.kind)
	}
	assert.ElementsMatch(t, []string{"mail", "notification_mail", "account-cleanup", "psp_event", "ocr",
		"settle_payment", "payment_card", "payment_capture", "daily_expiry", "daily_reconcile", "partner_webhook"}, kinds)
}
