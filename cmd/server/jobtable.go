package main

import (
	"log/slog"

	"cardpay/account"
	"cardpay/cards"
	"cardpay/files"
	"cardpay/invoicefiles"
	"cardpay/invoices"
	"cardpay/jobs"
	"cardpay/oauth"
	"cardpay/store"
)

// job is one kind of background job and the handler that runs it.
type job struct {
	kind string
	run  jobs.Handler
}

// jobTable is every background job the server runs, registered by run in one loop. Each
// kind is declared beside the code that runs it; this is the one place that names them
// all, because a kind enqueued but never registered is never claimed and waits in the
// table for good (the house test checks that every …JobKind of the module is named
// here). It is built once every service exists, from the services the pages use: acct
// for the mails and the cleanup, corporations for the issuer's registered name in the
// invoice reading, crd for the PSP's stored webhooks (acted on with the
// database alone: each was verified when it arrived), money for the payment jobs.
func jobTable(st *store.Store, logger *slog.Logger, acct *account.Service, corporations *account.Corporations, fileStore files.Store, crd *cards.Service, money *invoices.Services, hooks *oauth.Webhooks) []job {
	return []job{
		{oauth.WebhookJobKind, hooks.Deliver},
		{account.MailJobKind, acct.DeliverMail},
		{account.NotificationMailJobKind, acct.DeliverNotification},
		{account.CleanupJobKind, acct.RunCleanupJob},
		{cards.PSPEventJobKind, crd.RunEventJob},
		{invoicefiles.OCRJobKind, (&invoicefiles.OCR{Store: st, Files: fileStore, Registry: corporations, Logger: logger}).Run},
		{invoices.SettleJobKind, money.Payments.RunSettleJob},
		{invoices.CardJobKind, money.Payments.RunCardJob},
		{invoices.CaptureJobKind, money.Screening.RunCaptureJob},
		{invoices.ExpiryJobKind, money.Payments.RunExpiryJob},
		{invoices.ReconcileJobKind, money.Transfers.RunReconcileJob},
	}
}
