// Package info is the area of the pages around the service: the public help and
// policy pages, the error view, the terms of service with the gate that asks for the
// current version, and /toppage, which sends the buyer on to where they start.
package info

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/views"
	pages "cardpay/views/info"
)

// Handler serves the info pages.
type Handler struct {
	*web.App
}

// infoPage is a public page of help or policy text. Operators usually point the header
// links at their corporate site (see the LINK_* settings); these are the defaults.
type infoPage struct {
	path, title string
	sections    []section
}

// section is one headed part of an info page.
type section struct {
	heading    string
	paragraphs []string
}

// policyText is a page whose text has lists and links (the policies, the supplier
// service): its 制定日・改定日 line ("" for none) and its sections. Its infoPages entry
// has no sections of its own.
type policyText struct {
	dated    string
	sections []policySection
}

// policySection is one headed part of a policy page: paragraphs, a bulleted list
// (items), paragraphs after it, and the links it ends with.
type policySection struct {
	heading    string
	paragraphs []string
	items      []string
	after      []string
	links      []link
}

// link is a link a section ends with, to another page of the site.
type link struct{ label, href string }

// policyTexts are the pages of policyText, by path.
var policyTexts = map[string]policyText{
	PrivacyPath:         {PrivacyDated, privacySections},
	PersonalInfoPath:    {PersonalInfoDated, personalInfoSections},
	SupplierServicePath: {"", supplierServiceSections},
}

// The help and policy pages' paths: the pages (infoPages) and the menus' default links
// (DefaultLinks) both name them.
const (
	ManualPath          = "/help/manual"
	FAQPath             = "/help/faq"
	InquiryPath         = links.Inquiry // the form is handlers/inquiries'; only the menus' link is here
	PolicyTermsPath     = "/terms"
	PrivacyPath         = "/privacy"
	PersonalInfoPath    = "/privacy/personal-information"
	SupplierServicePath = "/supplier-service"
)

// DefaultLinks point the help and policy menus at the built-in pages.
var DefaultLinks = views.Links{
	Manual:          ManualPath,
	FAQ:             FAQPath,
	Inquiry:         InquiryPath,
	Terms:           PolicyTermsPath,
	Privacy:         PrivacyPath,
	PersonalInfo:    PersonalInfoPath,
	SupplierService: SupplierServicePath,
}

var infoPages = []infoPage{
	// The public terms page shows account.Terms, the text the sign-up accepts; ShowInfoPage
	// hands it to ShowPublicTermsPage.
	{PolicyTermsPath, "利用規約", nil},
	// These three are policyTexts.
	{PrivacyPath, "プライバシーポリシー", nil},
	{PersonalInfoPath, "個人情報の取り扱いについて", nil},
	{SupplierServicePath, "取引先向けサービス", nil},
}

// TextPages are the public pages of infoPages, in its order, each shown by ShowInfoPage.
var TextPages = func() []web.Page {
	ps := make([]web.Page, len(infoPages))
	for i, p := range infoPages {
		ps[i] = web.Page{Path: p.path, Title: p.title, Access: web.Public}
	}
	return ps
}()

// Pages are every public help and policy page: the manual and the FAQ (their own
// files), then TextPages.
var Pages = append([]web.Page{ManualPage, FAQPage}, TextPages...)

// ShowInfoPage serves p, one of TextPages, with its sections (the terms: their own page).
func (h *Handler) ShowInfoPage(p web.Page) echo.HandlerFunc {
	if p.Path == PolicyTermsPath {
		return h.ShowPublicTermsPage
	}
	var v pages.InfoView
	for _, ip := range infoPages {
		if ip.path == p.Path {
			for _, s := range ip.sections {
				v.Sections = append(v.Sections, pages.InfoSection{Heading: s.heading, Paragraphs: s.paragraphs})
			}
		}
	}
	if t, ok := policyTexts[p.Path]; ok {
		v.Dated = t.dated
		for _, s := range t.sections {
			is := pages.InfoSection{Heading: s.heading, Paragraphs: s.paragraphs, Items: s.items, After: s.after}
			for _, l := range s.links {
				is.Links = append(is.Links, pages.InfoLink{Label: l.label, Href: l.href})
			}
			v.Sections = append(v.Sections, is)
		}
	}
	return func(c *echo.Context) error {
		b, err := h.Base(c, p.Title)
		if err != nil {
			return err
		}
		v := v
		v.Base = b
		return web.Render(c, http.StatusOK, pages.InfoPage(v))
	}
}
