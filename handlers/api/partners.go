package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/store"
)

// A partner application calls the API with the access token the buyer's consent gave it
// (package oauth): Authorization: Bearer ory_at_…, without X-Access-Token. It acts as
// the user who approved it, on the routes its scopes open and no others: reading
// payments and suppliers, creating drafts. Submitting a payment, touching a card or the
// account is never a partner's: those routes have no scope here and answer 403.

// partnerScopes are the routes a partner may call and the scope each needs
// (openapi.json states it for each).
var partnerScopes = map[string]oauth.Scope{
	"GET /invoices":            oauth.ScopePaymentsRead,
	"GET /invoices/:id":        oauth.ScopePaymentsRead,
	"GET /invoices/commission": oauth.ScopePaymentsRead,

	"POST " + links.UploadInvoiceFile: oauth.ScopePaymentsDraft,
	"GET /invoices/files/:id":         oauth.ScopePaymentsDraft,
	"POST /drafts":                    oauth.ScopePaymentsDraft,
	"GET /drafts":                     oauth.ScopePaymentsDraft,
	"GET /drafts/:id":                 oauth.ScopePaymentsDraft,
	"PUT /drafts/:id":                 oauth.ScopePaymentsDraft,

	"POST /invoice_request_drafts":    oauth.ScopeRequestsDraft,
	"GET /invoice_request_drafts":     oauth.ScopeRequestsDraft,
	"GET /invoice_request_drafts/:id": oauth.ScopeRequestsDraft,
	"PUT /invoice_request_drafts/:id": oauth.ScopeRequestsDraft,

	"GET /suppliers":              oauth.ScopeSuppliersRead,
	"GET /suppliers/:id":          oauth.ScopeSuppliersRead,
	"GET /suppliers/:id/accounts": oauth.ScopeSuppliersRead,

	"GET /books/export": oauth.ScopeBooksRead,
}

// The answers to a partner's token (RFC 6750 §3.1).
var (
	errInvalidPartnerToken = newError(http.StatusUnauthorized, "invalid_token",
		"アクセストークンが無効です（期限切れ、取り消し、または連携の解除）。")
	errInsufficientScope = newError(http.StatusForbidden, "insufficient_scope",
		"この操作は、連携で許可された範囲に含まれていません。")
	errNotPartnersDraft = newError(http.StatusForbidden, "forbidden",
		"連携アプリケーションは、自分で作成した下書きだけを変更できます。")
)

// isPartnerToken says whether the request carries a partner's access token.
func isPartnerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || r.Header.Get(headerAccessToken) != "" {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, strings.HasPrefix(token, oauth.AccessTokenPrefix)
}

// partnerCaller checks a partner's token and loads the user it acts for.
func (s *server) partnerCaller(c *echo.Context, token string) (*principal, error) {
	if s.OAuth == nil {
		return nil, errInvalidPartnerToken
	}
	ctx := c.Request().Context()
	pc, err := s.OAuth.Check(ctx, token)
	if err != nil {
		c.Response().Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		return nil, errInvalidPartnerToken
	}
	u, err := s.Store.User(ctx, pc.BuyerID, pc.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errInvalidPartnerToken
	}
	if err != nil {
		return nil, err
	}
	web.SetCaller(c, account.Caller{Client: web.ClientOf(c)})
	return &principal{User: u, Mode: partnerMode, Partner: &pc}, nil
}

// allowPartner lets a partner's call through only on a route its grant opens.
func allowPartner(c *echo.Context, route string, p *principal) error {
	need, ok := partnerScopes[route]
	if ok && p.Partner.Can(need) {
		return nil
	}
	scope := string(need)
	if !ok {
		scope = "none"
	}
	c.Response().Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+scope+`"`)
	return errInsufficientScope
}
