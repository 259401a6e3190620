package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// pspSources are the PSP's origins the browser meets, by what it does there. Card
// entry happens on the PSP's own origin (割賦販売法's 非保持化, PCI DSS SAQ A): the card
// pages frame its fields and, for Stripe, load its script; any page's form may end, by
// the server's redirect, at its hosted card page or a 3-D Secure challenge.
type pspSources struct {
	script, frame, connect, form []string
}

// stripeSources are Stripe's documented origins for Stripe.js and the Payment Element
// (js.stripe.com and its subdomains for the script and its frames, hooks.stripe.com for
// 3-D Secure, api.stripe.com for its calls), and the pages a redirect sends a buyer to:
// Checkout's hosted page and the challenge.
var stripeSources = pspSources{
	script:  []string{"https://js.stripe.com", "https://*.js.stripe.com"},
	frame:   []string{"https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"},
	connect: []string{"https://api.stripe.com"},
	form:    []string{"https://checkout.stripe.com", "https://hooks.stripe.com"},
}

// StripeJS is Stripe.js, loaded from Stripe by the card-entry island (never bundled:
// Stripe requires it be served by Stripe).
const StripeJS = "https://js.stripe.com/v3/"

// PSPName is the configured gateway's name: "sandbox" or "stripe".
func (a *App) PSPName() string {
	if a.Cards != nil && a.Cards.Gateway != nil {
		return a.Cards.Gateway.Name()
	}
	return "sandbox"
}

// psp is the configured PSP's origins: Stripe's, or the sandbox PSP's one origin for
// everything.
func (a *App) psp() pspSources {
	if a.PSPName() == "stripe" {
		return stripeSources
	}
	o := cspOrigin(a.PSPOrigin)
	if o == "" {
		return pspSources{}
	}
	one := []string{o}
	return pspSources{frame: one, connect: one, form: one}
}

// policy is the Content-Security-Policy of a page with nonce; cardEntry adds what the
// card pages need of the PSP (its fields' frame, its script, its API) and nothing else.
func (a *App) policy(nonce string, cardEntry bool) string {
	p := a.psp()
	script, connect, frame := "'self' 'nonce-"+nonce+"'", "'self'", "'self'"
	if cardEntry {
		script += join(p.script)
		connect += join(p.connect)
		frame += join(p.frame)
	}
	// img-src blob: lets the invoice-upload island preview a chosen image through an
	// object URL (the file never leaves the browser for that).
	return "default-src 'self'; script-src " + script + "; style-src 'self'; " +
		"img-src 'self' data: blob:; font-src 'self'; connect-src " + connect + "; frame-src " + frame + "; " +
		"object-src 'none'; base-uri 'none'; form-action 'self'" + join(p.form) + "; frame-ancestors 'none'"
}

func join(sources []string) string {
	if len(sources) == 0 {
		return ""
	}
	return " " + strings.Join(sources, " ")
}

// AllowCardEntry gives this response the card pages' policy: the card-entry island
// frames the PSP's fields (and, for Stripe, loads Stripe.js).
func (a *App) AllowCardEntry(c *echo.Context) {
	c.Response().Header().Set("Content-Security-Policy", a.policy(nonceFrom(c.Request().Context()), true))
}

// AllowFormRedirect lets this page's forms lead to origin as well as to the app: the
// OAuth consent page's answer redirects to the partner's registered redirect URI, which
// a browser checks against form-action. Not an http(s) origin: nothing is added.
func (a *App) AllowFormRedirect(c *echo.Context, origin string) {
	o := cspOrigin(origin)
	if o == "" {
		return
	}
	p := a.policy(nonceFrom(c.Request().Context()), false)
	c.Response().Header().Set("Content-Security-Policy", strings.Replace(p, "form-action 'self'", "form-action 'self' "+o, 1))
}

// PSPPage reports whether raw is an absolute URL on one of the PSP's origins a buyer may
// be sent to (its hosted card page, a 3-D Secure challenge): the server redirects only
// there, so a PSP's answer can never send a buyer anywhere else.
func (a *App) PSPPage(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil {
		return false
	}
	return slices.Contains(a.psp().form, u.Scheme+"://"+u.Host)
}

// ErrNotOnThePSP is shown when the PSP answers a page to send the buyer to (a hosted card
// page, a 3-D Secure challenge) that is not on its origins: the buyer is sent nowhere.
var ErrNotOnThePSP = &PageError{Status: http.StatusBadGateway, Heading: "カード会社の画面を開けません",
	Message: "決済代行会社の画面を開けませんでした。時間をおいて、もう一度お試しください。"}

// RedirectToPSP sends the buyer to raw, a page of the PSP's (its hosted card page, a 3-D
// Secure challenge), and only there: the CSP's form-action names the same origins, and a
// redirect anywhere else is refused with ErrNotOnThePSP.
func (a *App) RedirectToPSP(c *echo.Context, raw string) error {
	if !a.PSPPage(raw) {
		a.Logger.ErrorContext(c.Request().Context(), "the PSP answered a page outside its origins", "url", raw)
		return ErrNotOnThePSP
	}
	return c.Redirect(http.StatusSeeOther, raw)
}
