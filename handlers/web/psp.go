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

// pagePolicy is what one response's Content-Security-Policy adds to the strict one that
// SecurityHeaders sets: the PSP's card fields, the Tag Manager container, one more
// origin a form may lead to. Each Allow… call adds its part and rewrites the header, so
// the parts combine whatever order a handler calls them in.
type pagePolicy struct {
	cardEntry, tags bool
	// formOrigins: the newest first, as each AllowFormRedirect put its origin right
	// after 'self'.
	formOrigins []string
}

const contextPolicy = "web.policy"

func policyOf(c *echo.Context) pagePolicy {
	pp, _ := c.Get(contextPolicy).(pagePolicy)
	return pp
}

func (a *App) setPolicy(c *echo.Context, pp pagePolicy) {
	c.Set(contextPolicy, pp)
	c.Response().Header().Set("Content-Security-Policy", a.policy(nonceFrom(c.Request().Context()), pp))
}

// policy is the Content-Security-Policy of a page with nonce; cardEntry adds what the
// card pages need of the PSP (its fields' frame, its script, its API) and nothing else,
// tags what Tag Manager needs, formOrigin one more destination for forms.
func (a *App) policy(nonce string, pp pagePolicy) string {
	p := a.psp()
	script, connect, frame, img := "'self' 'nonce-"+nonce+"'", "'self'", "'self'", "'self' data: blob:"
	if pp.cardEntry {
		script += join(p.script)
		connect += join(p.connect)
		frame += join(p.frame)
	}
	if pp.tags {
		script += join(tagSources.script)
		connect += join(tagSources.connect)
		img += join(tagImages)
	}
	form := "'self'" + join(pp.formOrigins) + join(p.form)
	// img-src blob: lets the invoice-upload island preview a chosen image through an
	// object URL (the file never leaves the browser for that).
	return "default-src 'self'; script-src " + script + "; style-src 'self'; " +
		"img-src " + img + "; font-src 'self'; connect-src " + connect + "; frame-src " + frame + "; " +
		"object-src 'none'; base-uri 'none'; form-action " + form + "; frame-ancestors 'none'"
}

func join(sources []string) string {
	if len(sources) == 0 {
		return ""
	}
	return " " + strings.Join(sources, " ")
}

// AllowCardEntry gives this response the card pages' policy: the card-entry island
// frames the PSP's fields (and, for Stripe, loads Stripe.js). Call it before the page's
// Base: a card page loads no tag manager.
func (a *App) AllowCardEntry(c *echo.Context) {
	pp := policyOf(c)
	pp.cardEntry, pp.tags = true, false
	a.setPolicy(c, pp)
}

// AllowFormRedirect lets this page's forms lead to origin as well as to the app: the
// OAuth consent page's answer redirects to the partner's registered redirect URI, which
// a browser checks against form-action. Not an http(s) origin: nothing is added.
func (a *App) AllowFormRedirect(c *echo.Context, origin string) {
	o := cspOrigin(origin)
	if o == "" {
		return
	}
	pp := policyOf(c)
	if !slices.Contains(pp.formOrigins, o) {
		pp.formOrigins = append([]string{o}, pp.formOrigins...)
	}
	a.setPolicy(c, pp)
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
