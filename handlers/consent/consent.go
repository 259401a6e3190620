// Package consent is the area of /oauth (issue 30): the page where a signed-in buyer
// approves or refuses a partner application's request (the "OAuth approve" step of
// SPEC.md §8), and the endpoints partners call server to server — the token, its
// revocation and its introspection — which are ory/fosite's (package oauth) written to
// the response as RFC 6749, 7009 and 7662 say.
package consent

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/ory/fosite"

	"cardpay/handlers/web"
	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/consent"
)

// Handler serves the consent page.
type Handler struct {
	*web.App
}

// The authorisation server's paths.
const (
	AuthorizePath  = "/oauth/authorize"
	TokenPath      = "/oauth/token"
	RevokePath     = "/oauth/revoke"
	IntrospectPath = "/oauth/introspect"
)

const title = "外部アプリケーションの連携"

// ShowConsentPage checks the partner's request and asks the buyer. A request fosite
// refuses with a redirect URI it trusts goes back to the partner with the error; one
// whose client or redirect URI is wrong stays here (RFC 6749 §4.1.2.1: never redirect
// to an unverified URI).
func (h *Handler) ShowConsentPage(c *echo.Context) error {
	ar, client, err := h.request(c)
	if err != nil || ar == nil {
		return err
	}
	u := web.CurrentUser(c)
	v := pages.ConsentView{Action: c.Request().URL.RequestURI(), AppName: client.Name, LogoText: client.LogoText,
		BuyerName: u.DisplayName()}
	for _, s := range ar.GetRequestedScopes() {
		sc := oauth.Scope(s)
		if sc == oauth.ScopeRequestsDraft && u.BusinessForm != pay.Corporation {
			v.Withheld = append(v.Withheld, sc.Text()+"（カード払い依頼は法人のお客さまのみ）")
			continue
		}
		v.Scopes = append(v.Scopes, sc.Text())
	}
	// 許可する / 許可しない redirect to the partner: the page's form-action allows its origin.
	if r := ar.GetRedirectURI(); r != nil {
		h.AllowFormRedirect(c, r.Scheme+"://"+r.Host)
	}
	return web.Show(h.App, c, title, nil, v, pages.ConsentPage)
}

// Decide is the buyer's answer: approve (the consent kept, the code sent back to the
// partner) or refuse (access_denied sent back).
func (h *Handler) Decide(c *echo.Context) error {
	ar, _, err := h.request(c)
	if err != nil || ar == nil {
		return err
	}
	ctx := c.Request().Context()
	w := c.Response()
	if c.FormValue("decision") != "approve" {
		h.OAuth.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The buyer refused the request."))
		return nil
	}
	u := web.CurrentUser(c)
	var granted []string
	for _, s := range ar.GetRequestedScopes() {
		if oauth.Scope(s) == oauth.ScopeRequestsDraft && u.BusinessForm != pay.Corporation {
			continue
		}
		ar.GrantScope(s)
		granted = append(granted, s)
	}
	if len(granted) == 0 {
		// Nothing it asked for can be given on this account: as if refused.
		h.OAuth.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("Nothing requested can be granted on this account."))
		return nil
	}
	if err := h.Store.GrantOAuthConsent(ctx, u.BuyerID, u.ID, ar.GetClient().GetID(), granted, h.Now()); err != nil {
		return err
	}
	resp, err := h.OAuth.NewAuthorizeResponse(ctx, ar, &oauth.Session{BuyerID: u.BuyerID, UserID: u.ID})
	if err != nil {
		h.OAuth.WriteAuthorizeError(ctx, w, ar, err)
		return nil
	}
	h.OAuth.WriteAuthorizeResponse(ctx, w, ar, resp)
	return nil
}

// request parses the partner's authorisation request. ar nil with a nil error: the
// error was written to the partner already.
func (h *Handler) request(c *echo.Context) (fosite.AuthorizeRequester, store.OAuthClient, error) {
	if h.OAuth == nil {
		return nil, store.OAuthClient{}, web.ErrNotFound
	}
	ctx := c.Request().Context()
	ar, err := h.OAuth.NewAuthorizeRequest(ctx, c.Request())
	if err != nil {
		if ar != nil && ar.IsRedirectURIValid() {
			h.OAuth.WriteAuthorizeError(ctx, c.Response(), ar, err)
			return nil, store.OAuthClient{}, nil
		}
		return nil, store.OAuthClient{}, badRequest(err)
	}
	// fosite checks PKCE when the code is made; asking the buyer first would be in vain.
	if f := ar.GetRequestForm(); f.Get("code_challenge") == "" || f.Get("code_challenge_method") != "S256" {
		h.OAuth.WriteAuthorizeError(ctx, c.Response(), ar,
			fosite.ErrInvalidRequest.WithHint("PKCE is required: code_challenge with code_challenge_method S256."))
		return nil, store.OAuthClient{}, nil
	}
	client, err := h.Store.OAuthClient(ctx, ar.GetClient().GetID())
	if err != nil {
		return nil, store.OAuthClient{}, err
	}
	return ar, client, nil
}

// badRequest is the page for a request that names no registered client or redirect URI.
func badRequest(err error) error {
	var rfc *fosite.RFC6749Error
	code := "invalid_request"
	if errors.As(err, &rfc) {
		code = rfc.ErrorField
	}
	return &web.PageError{Status: http.StatusBadRequest, Heading: "連携の要求を受け付けられません",
		Message: "外部アプリケーションからの要求に誤りがあります（" + code + "）。アプリケーションの提供元にお問い合わせください。"}
}
