// Package api is the JSON API under /api/v1 (SPEC.md §7: the Users and Suppliers calls,
// and the bank, account-holder and clock calls of Invoices; and the registration form's
// postal-code lookup) that islands and outside clients use. Like the site's areas it
// stands on the kernel (handlers/web) and is a thin adapter around the account service
// and the store: the rules live in package account and package pay.
//
// routes() below is the package's route table; openapi.json describes every route in it
// (a test keeps the two equal). JSON is snake_case in and out. Errors are always JSON:
//
//	400 {"status":"invalid_json"|"bad_request", "message":…}
//	401 {"status":"unauthorized"|"expired_access_token"|"invalid_credentials"|…, "message":…}
//	403 {"status":"card_check_locked", "message":…, "errors":[…]} (adding cards locked after declined checks, until the next day or an operator)
//	404 {"status":"not_found", "message":…} (postal_codes: {"status":"not_found"} alone, as it always was)
//	409 {"status":"supplier_in_use"|"terms_outdated"|"invalid_state", "message":…}
//	422 {"status":"card_declined", "message":…, "result_code":…, "errors":[…]} (a card refused by the card company)
//	413 {"status":"payload_too_large", "message":…}
//	422 {"status":"validation_error", "message":…, "errors":[{"field":…, "message":…}]}
//	429 {"status":"too_many_attempts", "message":…}
//	500 {"status":"internal_error", "message":…}
package api

import (
	"crypto/rand"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
)

// Prefix is where the API lives.
const Prefix = links.API

// Token lifetimes (DESIGN.md §4 "API auth").
const (
	// DefaultAccessTokenTTL is how long an access token and its id_token work unless
	// web.Deps.APIAccessTokenTTL shortens it (development and e2e runs).
	DefaultAccessTokenTTL = 15 * time.Minute
	refreshTokenTTL       = 30 * 24 * time.Hour
	// signupTokenTTL bounds how long a started sign-up can be finished through the API.
	signupTokenTTL = 24 * time.Hour
)

// server serves every call on the kernel: the store, the account service, the
// sessions of cookie mode, the clock, the logger and the corporation search are the
// site's own (web.App).
type server struct {
	*web.App
	// idKey signs the id_tokens: derived from SECRET_KEY (HKDF-SHA256, its own info
	// string), never the key itself.
	idKey []byte
	// accessTokenTTL is APIAccessTokenTTL, or DefaultAccessTokenTTL when that is 0.
	accessTokenTTL time.Duration
}

// access says who may call a route.
type access int

const (
	public access = iota
	// signedIn needs a valid access token (token mode) or a signed-in session cookie
	// with X-Requested-With: fetch (cookie mode).
	signedIn
	// currentTerms is signedIn by a user who accepted the terms in force: the calls that
	// charge a card or send a card-payment request (the site's pages have
	// info.RequireCurrentTerms for the same rule).
	currentTerms
)

type route struct {
	method, path string
	access       access
	handler      func(*server, *echo.Context) error
}

// routes is the API's route table, grouped like SPEC.md §7.
func routes() []route {
	return []route{
		// Session.
		{http.MethodPost, "/login", public, (*server).login},
		{http.MethodPost, "/login_2auth", public, (*server).loginSecondFactor},
		{http.MethodPost, "/logout", public, (*server).logout}, // authenticates itself: expired tokens may log out
		{http.MethodPost, "/users/token", public, (*server).refreshTokens},

		// Sign-up and registration.
		{http.MethodPost, "/users", public, (*server).startSignup},
		{http.MethodPost, "/users/certification", public, (*server).certifySignup},
		{http.MethodPost, "/users/resignup", public, (*server).resignup},
		{http.MethodPost, "/users/validation", public, (*server).validateRegistration},
		{http.MethodPost, "/users/corporation", public, (*server).registerCorporation},
		{http.MethodPost, "/users/sole_proprietor", public, (*server).registerSoleProprietor},
		{http.MethodPost, "/user_simple_check", public, (*server).simpleCheck},
		{http.MethodGet, "/business_categories", public, (*server).businessCategories},
		// The registration form's address lookup (SPEC.md has no call for it).
		{http.MethodGet, "/postal_codes/:code", public, (*server).getPostalCodes},

		// Password reset (signed out).
		{http.MethodPost, "/users/send_password_reset_code", public, (*server).sendPasswordResetCode},
		{http.MethodPut, "/users/password_reset", public, (*server).resetPassword},

		// The signed-in user.
		{http.MethodGet, "/users/information", signedIn, (*server).information},
		{http.MethodPut, "/users/user_name", signedIn, (*server).setUserName},
		{http.MethodPut, "/users/transfer_person_name", signedIn, (*server).setTransferPersonName},
		{http.MethodPut, "/users/password", signedIn, (*server).changePassword},
		{http.MethodPut, "/users/email_address", signedIn, (*server).startEmailChange},
		{http.MethodPost, "/users/verify_email_auth_code", signedIn, (*server).confirmEmailChange},
		{http.MethodPut, "/users/license", signedIn, (*server).acceptLicense},
		{http.MethodGet, "/users/security_settings", signedIn, (*server).securitySettings},
		{http.MethodPut, "/users/security_settings", signedIn, (*server).setSecuritySettings},
		{http.MethodGet, "/users/stats", signedIn, (*server).stats},

		// Notifications.
		{http.MethodGet, "/users/notifications", signedIn, (*server).notifications},
		{http.MethodGet, "/users/notices/:id", signedIn, (*server).notice},
		{http.MethodPost, "/users/notifications/:id/confirmation", signedIn, (*server).confirmNotification},

		// Suppliers.
		{http.MethodPost, "/suppliers/corporation", signedIn, (*server).createCorporationSupplier},
		{http.MethodPost, "/suppliers/sole_proprietor", signedIn, (*server).createSoleProprietorSupplier},
		{http.MethodGet, "/suppliers", signedIn, (*server).suppliers},
		{http.MethodGet, "/suppliers/:id", signedIn, (*server).supplier},
		{http.MethodDelete, "/suppliers/:id", signedIn, (*server).deleteSupplier},
		{http.MethodPost, "/suppliers/:id/accounts", signedIn, (*server).createSupplierAccount},
		{http.MethodGet, "/suppliers/:id/accounts", signedIn, (*server).supplierAccounts},
		{http.MethodPut, "/suppliers/:id/accounts/:accountId", signedIn, (*server).updateSupplierAccount},
		{http.MethodGet, "/corporations", signedIn, (*server).corporations},

		// Banks and bank accounts (SPEC.md §7 Invoices).
		{http.MethodGet, "/banks2", signedIn, (*server).searchBanks},
		{http.MethodGet, "/banks/closed_day", signedIn, (*server).closedDays},
		{http.MethodPost, "/accounts/holder_kana", signedIn, (*server).holderKana},

		// Saved cards and authorisations (SPEC.md §7 Cards), and the message of a gateway
		// result code, public: it tells nothing about anyone.
		{http.MethodGet, "/invoices/credit_cards", signedIn, (*server).creditCards},
		{http.MethodPost, "/invoices/credit_cards", signedIn, (*server).addCreditCard},
		{http.MethodDelete, "/invoices/credit_cards/:id", signedIn, (*server).deleteCreditCard},
		{http.MethodPost, "/invoices/credit_cards/approval", signedIn, (*server).approveCreditCard},
		{http.MethodGet, "/v_result_message/:id", public, (*server).resultMessageOf},

		// Invoice files (SPEC.md §7 Invoices): upload, the file with its reading (OCR), and
		// the app's signed URLs, public: their signature authenticates them.
		{http.MethodPost, links.UploadInvoiceFile, signedIn, (*server).uploadInvoiceFile},
		{http.MethodPost, "/invoices/files/upload/url", signedIn, (*server).invoiceFileUploadURL},
		{http.MethodPut, "/invoices/files/signed_upload/:token", public, (*server).signedUpload},
		{http.MethodGet, "/invoices/files/:id", signedIn, (*server).invoiceFile},
		{http.MethodGet, "/invoices/files/:id/download/url", signedIn, (*server).invoiceFileDownloadURL},
		{http.MethodGet, "/invoices/files/signed_download/:token", public, (*server).signedDownload},

		// Received invoices (受取請求書, issue 29): the list with the 電子帳簿保存法 search,
		// one invoice, and the buyer's upload.
		{http.MethodGet, "/receipt_invoices", signedIn, (*server).receiptInvoices},
		{http.MethodPost, "/receipt_invoices/upload", signedIn, (*server).uploadReceiptInvoice},
		{http.MethodGet, "/receipt_invoices/address", signedIn, (*server).receiptInvoiceAddress},
		{http.MethodPost, "/receipt_invoices/address", signedIn, (*server).renewReceiptInvoiceAddress},
		{http.MethodGet, "/receipt_invoices/:id", signedIn, (*server).receiptInvoice},
		{http.MethodPost, "/receipt_invoices/:id/mark", signedIn, (*server).markReceiptInvoice},

		// Paying invoices (SPEC.md §7 Invoices): submit, the lists, one invoice, correct,
		// cancel, the fee and promotion codes; and drafts.
		{http.MethodPost, "/invoices", currentTerms, (*server).submitInvoice},
		{http.MethodGet, "/invoices", signedIn, (*server).invoices},
		{http.MethodGet, "/invoices/commission", signedIn, (*server).commission},
		{http.MethodPost, "/invoices/promotion", signedIn, (*server).promotion},
		{http.MethodGet, "/invoices/:id", signedIn, (*server).invoice},
		{http.MethodPut, "/invoices/:id", currentTerms, (*server).resubmitInvoice},
		{http.MethodPut, "/invoices/:id/cancel", signedIn, (*server).cancelInvoice},
		{http.MethodGet, "/invoices/:id/receipts/download/url", signedIn, (*server).receiptURLs},
		{http.MethodGet, "/invoices/receipts/signed_download/:kind/:token", public, (*server).signedReceipt},
		{http.MethodGet, "/books/export", signedIn, (*server).booksExport},
		{http.MethodPost, "/drafts", signedIn, paymentDrafts.create},
		{http.MethodGet, "/drafts", signedIn, paymentDrafts.list},
		{http.MethodDelete, "/drafts", signedIn, paymentDrafts.delete},
		{http.MethodGet, "/drafts/:id", signedIn, paymentDrafts.get},
		{http.MethodPut, "/drafts/:id", signedIn, paymentDrafts.update},

		// Card-payment requests: the requester's requests, their drafts and its receiving
		// accounts (corporations not excluded only); the customer's key and payment.
		{http.MethodGet, "/invoices/request_sellers", signedIn, (*server).requestSellers},
		{http.MethodPost, "/invoices/request_sellers", currentTerms, (*server).sendRequest},
		{http.MethodGet, "/invoices/:id/request_seller", signedIn, (*server).requestSeller},
		{http.MethodPut, "/invoices/:id/request_seller/cancel", signedIn, (*server).cancelRequestSeller},
		{http.MethodGet, "/invoices/request_keys/:key", signedIn, (*server).requestKey},
		{http.MethodPost, "/invoices/request_keys", signedIn, (*server).linkRequestKey},
		{http.MethodPut, "/invoices/:id/requestbuyer", currentTerms, (*server).payRequest},
		{http.MethodGet, "/buyers/:id/accounts", signedIn, (*server).buyerAccounts},
		{http.MethodPost, "/buyers/:id/accounts", signedIn, (*server).createBuyerAccount},
		{http.MethodPost, "/invoice_request_drafts", signedIn, requestDrafts.create},
		{http.MethodGet, "/invoice_request_drafts", signedIn, requestDrafts.list},
		{http.MethodDelete, "/invoice_request_drafts", signedIn, requestDrafts.delete},
		{http.MethodGet, "/invoice_request_drafts/:id", signedIn, requestDrafts.get},
		{http.MethodPut, "/invoice_request_drafts/:id", signedIn, requestDrafts.update},

		// The server's clock, public: it tells nothing about anyone.
		{http.MethodGet, "/system/time", public, (*server).systemTime},

		// This document.
		{http.MethodGet, "/openapi.json", public, (*server).openAPI},
	}
}

// methods the 405 fallback answers for, on a path that exists with other methods.
var allMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// FallbackRouteName names the routes Register adds only to answer 404 and 405 in JSON.
const FallbackRouteName = "api.fallback"

// Register adds the API's routes to e under /api/v1. Requests reach them through the
// site's own wrappers (security headers, cross-origin protection, scs LoadAndSave) and
// echo middleware (LoadUser sets the cookie session's user); every answer, including
// 404, 405 and panics, is JSON.
func Register(e *echo.Echo, a *web.App) {
	s := newServer(a)
	g := e.Group(Prefix)
	allowed := map[string][]string{}
	var paths []string
	for _, r := range routes() {
		h := s.bind(r.handler)
		if r.access == currentTerms {
			h = requireCurrentTerms(h)
		}
		if r.access != public {
			h = s.requireAuth(r.method+" "+r.path, h)
		}
		add(g, echo.Route{Method: r.method, Path: r.path, Handler: h, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
		if _, ok := allowed[r.path]; !ok {
			paths = append(paths, r.path)
		}
		allowed[r.path] = append(allowed[r.path], r.method)
	}
	for _, p := range paths {
		allow := strings.Join(allowed[p], ", ")
		for _, m := range allMethods {
			if slices.Contains(allowed[p], m) {
				continue
			}
			add(g, echo.Route{Method: m, Path: p, Name: FallbackRouteName, Handler: func(c *echo.Context) error {
				c.Response().Header().Set("Allow", allow)
				return errMethodNotAllowed
			}, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
		}
	}
	for _, p := range []string{"", "/*"} {
		add(g, echo.Route{Method: echo.RouteNotFound, Path: p, Name: FallbackRouteName, Handler: func(*echo.Context) error {
			return errNotFound
		}, Middlewares: []echo.MiddlewareFunc{s.jsonErrors}})
	}
}

// add registers a route and panics on a conflict, as echo's own helpers do: a broken
// route table must stop the start-up.
func add(g *echo.Group, r echo.Route) {
	if _, err := g.AddRoute(r); err != nil {
		panic(err)
	}
}

func newServer(a *web.App) *server {
	ttl := a.APIAccessTokenTTL
	if ttl <= 0 {
		ttl = DefaultAccessTokenTTL
	}
	secret := a.SecretKey
	if secret == "" {
		// Only tests and a mis-wired start get here (the configuration always has a
		// SECRET_KEY): id tokens then work for this process alone.
		a.Logger.Warn("api: no SecretKey; id tokens are signed with a random key and will not survive a restart or work across instances")
		secret = rand.Text()
	}
	return &server{App: a, idKey: deriveIDTokenKey(secret), accessTokenTTL: ttl}
}

func (s *server) bind(h func(*server, *echo.Context) error) echo.HandlerFunc {
	return func(c *echo.Context) error { return h(s, c) }
}
