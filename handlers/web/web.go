// Package web is the kernel every area of the site stands on: the dependencies, rendering
// into a buffer, the one error path and its pages, sessions and the flash notice, the CSP
// nonce, path and paging parameters, the generic wizard state of DESIGN.md §2, and the
// HTTP side of invoice files and receipts (reading an upload, sending a download or a
// preview); what is done with them is the services' in Deps (invoicefiles, receipts).
// Nothing in it knows a page: each area (handlers/signin, handlers/suppliers, …) embeds
// *App in its own Handler and adds its pages; handlers/routes.go wires them.
package web

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/alexedwards/scs/v2"

	"cardpay/account"
	"cardpay/cards"
	"cardpay/invoicefiles"
	"cardpay/invoices"
	"cardpay/mail"
	"cardpay/oauth"
	"cardpay/store"
	"cardpay/views"
)

// Deps is everything the site depends on.
type Deps struct {
	Store   *store.Store
	Account *account.Service
	// Corporations searches corporations by name or number for the supplier pages and
	// the API (the local registry table, and the NTA's Web-API when configured).
	Corporations *account.Corporations
	Sessions     *scs.SessionManager
	// OpsSessions is the operator console's session (its own cookie, on /ops only:
	// handlers/ops, whose NewSessions the site uses when it is nil).
	OpsSessions *scs.SessionManager
	Logger      *slog.Logger
	ServiceName string
	// BaseURL is the public origin (https://… in production); HSTS is sent when it is https.
	BaseURL string
	Links   views.Links
	// TagManagerID (TAG_MANAGER_ID, SPEC.md §9) is the Google Tag Manager container the
	// buyers' pages load; empty, no page loads one and the policy allows none.
	TagManagerID string
	// CollectionExclusions are corporate numbers that may not request card payments
	// even though they are corporations (SPEC.md §4).
	CollectionExclusions map[string]bool
	// Development is APP_ENV=development (and the tests): pages may tell the developer
	// how to set the machine up (the OCR tools' install command on the upload page).
	Development bool
	// DevMailbox is set only in development without SMTP_URL; then /dev/mailbox is routed.
	DevMailbox mail.Box
	// SecretKey is SECRET_KEY; the API derives its id_token signing key from it.
	SecretKey string
	// APIAccessTokenTTL shortens the API's access tokens in development and e2e runs
	// (API_ACCESS_TOKEN_TTL); 0 means 15 minutes.
	APIAccessTokenTTL time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed
	// (TRUSTED_PROXIES); with none, the client IP is the connection's peer.
	TrustedProxies []*net.IPNet
	// Clock is the time; tests move it to check the session timeouts. nil is time.Now.
	Clock func() time.Time
	// PSPOrigin is the sandbox PSP's origin as the browser sees it (its second
	// listener): the card-entry island frames its card fields, and the add-card and
	// payment forms end at its hosted page or its 3-D Secure challenge, so the CSP names
	// it (psp.go). Empty with Stripe, whose origins are fixed.
	PSPOrigin string
	// StripePublishableKey (STRIPE_PUBLISHABLE_KEY, pk_…) lets the card-entry island load
	// Stripe.js with PSP=stripe; without it the add page offers Stripe Checkout only.
	StripePublishableKey string
	// Cards is the saved-card service the pages and the API share: with the money
	// services, the only way to the card gateway (the PSP).
	Cards *cards.Service
	// The money services the pages and the API share, built once (invoices.New): the
	// buyer's payments, the operators' screening and transfers, card-payment requests.
	Payments  *invoices.Payments
	Screening *invoices.Screening
	Transfers *invoices.Transfers
	Requests  *invoices.Requests
	// InvoiceFiles saves, matches, previews and signs the invoice files the pages and the
	// API share (its file store and URL signer are the ones the OCR job uses).
	InvoiceFiles *invoicefiles.Service
	// Receipts makes the receipts of transferred payments and signs their URLs
	// (receipts.Service).
	Receipts ReceiptMaker
	// Remitter is the service's own account in the transfer files (configuration).
	Remitter invoices.Remitter
	// OAuth is the authorisation server for partner applications (issue 30); nil serves
	// no OAuth routes' tokens (the pages answer 404).
	OAuth *oauth.Server
	// InboundMailDomain is the domain of the buyers' receiving addresses for invoices by
	// mail (INBOUND_MAIL_DOMAIN); "" when this installation takes no mail.
	InboundMailDomain string
}

// ReceiptMaker is what the pages and the API ask of receipts.Service, named here so that
// the kernel needs only its three calls: a signed URL of one receipt of a transferred
// payment, the check of such a URL, and the PDF with its file name
// (receipts.ErrNoReceipt when the payment has none).
type ReceiptMaker interface {
	URL(buyerID, id int64, kind string) (string, time.Time)
	VerifyURL(kind, token string) (buyerID, id int64, err error)
	PDF(ctx context.Context, buyerID, id int64, kind string) (name string, pdf []byte, err error)
}

// App is the kernel that every area's Handler embeds.
type App struct {
	Deps
	// uploads counts the uploads running on this instance (UploadSlot).
	uploads uploadSlots
}

// New fills the defaults of d.
func New(d Deps) *App {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Corporations == nil {
		d.Corporations = &account.Corporations{Store: d.Store, Logger: d.Logger}
	}
	// Registration checks corporate numbers against the same registry as 法人名検索.
	if d.Account != nil && d.Account.Corporations == nil {
		d.Account.Corporations = d.Corporations
	}
	if d.Cards != nil && d.Cards.Limiter == nil && d.Account != nil {
		d.Cards.Limiter = d.Account
	}
	return &App{Deps: d}
}

// SetMoney puts the money services built by invoices.New in d.
func (d *Deps) SetMoney(m *invoices.Services) {
	d.Payments, d.Screening, d.Transfers, d.Requests = m.Payments, m.Screening, m.Transfers, m.Requests
}

// Now is the application's clock.
func (a *App) Now() time.Time {
	if a.Clock != nil {
		return a.Clock()
	}
	return time.Now()
}
