package web

import (
	"regexp"

	"github.com/labstack/echo/v5"
)

// tagManagerID is Google Tag Manager's container id: "GTM-" and a few capitals and digits.
var tagManagerID = regexp.MustCompile(`^GTM-[A-Z0-9]{4,12}$`)

// ValidTagManagerID reports whether id is a Tag Manager container id (TAG_MANAGER_ID).
// Configuration is refused otherwise, so that the setting can never put anything else
// into the page's script or its Content-Security-Policy.
func ValidTagManagerID(id string) bool { return tagManagerID.MatchString(id) }

// tagSources are the origins Google documents for Tag Manager with Google Analytics 4
// under a nonce-based policy (the container script, its measurement calls and pixels).
// They are added only to pages that load the container (SPEC.md §9).
var tagSources = pspSources{
	script:  []string{"https://www.googletagmanager.com"},
	connect: []string{"https://www.googletagmanager.com", "https://*.google-analytics.com", "https://*.analytics.google.com"},
}

var tagImages = []string{"https://www.googletagmanager.com", "https://*.google-analytics.com"}

// pageTags answers the Tag Manager id this page loads, and gives the response the policy
// that allows it: "" when no id is configured, and on the card pages, whose scripts are
// kept to ours and the PSP's (PCI DSS 6.4.3: every script on a page that takes a card is
// one the service chose). The console's pages never call it (ops builds on BaseWith).
func (a *App) pageTags(c *echo.Context) string {
	if a.TagManagerID == "" || !ValidTagManagerID(a.TagManagerID) {
		return ""
	}
	pp := policyOf(c)
	if pp.cardEntry {
		return ""
	}
	pp.tags = true
	a.setPolicy(c, pp)
	return a.TagManagerID
}
