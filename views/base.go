// Package views holds the templ components: layouts, ui/ components and one page file
// per handler file. Every page takes one typed view model that embeds Base.
package views

import (
	"strconv"

	"cardpay/pay"
)

// Base is what every page needs besides its own content.
type Base struct {
	ServiceName string
	// Title is the page's own title; the document title adds the service name, and
	// "エラー：" in front when the page shows validation errors.
	Title       string
	Description string
	Nonce       string
	CurrentPath string
	// User is nil on public pages.
	User *User
	// Operator is the signed-in operator on the console's pages (/ops), nil elsewhere.
	Operator *Operator
	Stats    pay.Stats
	// StatsUnknown says the stats could not be read (SPEC.md §8: the failure is only
	// logged): the page is shown without counts, and no list takes its size from Stats.
	StatsUnknown bool
	Flash        *Flash
	// Errors are validation failures shown in the error summary and beside each field.
	Errors pay.FieldErrors
	Links  Links
	// TagManagerID is the Tag Manager container the page loads (TAG_MANAGER_ID); empty
	// loads nothing, and the console's and card pages never have one.
	TagManagerID string
}

// SetBase fills the Base a view embeds (web.Show fills any view through it).
func (b *Base) SetBase(base Base) { *b = base }

// User is the signed-in user as the header shows them.
type User struct {
	DisplayName        string
	EmailAddress       string
	BusinessForm       pay.BusinessForm
	CollectionsEnabled bool
	// Review is the buyer's review state; held and rejected buyers see a banner.
	Review pay.BuyerReview
}

// Operator is the signed-in operator as the console's header shows them.
type Operator struct {
	Name         string
	EmailAddress string
	Roles        []string
}

// Has says whether the operator holds role (the console shows only what they may do).
func (o *Operator) Has(role string) bool {
	if o == nil {
		return false
	}
	for _, r := range o.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// Flash is a one-time notice carried across a redirect (SPEC.md §3 snackbar notice).
type Flash struct {
	Color    string `json:"color"` // success, error or info
	Title    string `json:"title"`
	Text     string `json:"text"`
	Duration int    `json:"duration"` // milliseconds
}

// Links are the help and policy destinations of the header and drawer menus; they are
// configuration because they usually live on the operator's corporate site.
type Links struct {
	Manual, FAQ, Inquiry, Terms, Privacy, PersonalInfo, SupplierService string
}

// DocumentTitle is the <title>: page, service, and the error prefix when invalid.
func (b Base) DocumentTitle() string {
	t := b.ServiceName
	if b.Title != "" {
		t = b.Title + " | " + b.ServiceName
	}
	if len(b.Errors) > 0 {
		t = "エラー：" + t
	}
	return t
}

// Workflow is the area of the app a route belongs to; the mobile header shows its label
// and icon (SPEC.md §2).
type Workflow struct {
	Label string
	Icon  string
}

// WorkflowFor picks the workflow by the route's first path segment.
func WorkflowFor(path string) (Workflow, bool) {
	switch {
	case hasPrefix(path, "/payments"):
		return Workflow{"請求書カード払い", "credit_card"}, true
	case hasPrefix(path, "/collections"):
		return Workflow{"カード払い依頼", "outgoing_mail"}, true
	case hasPrefix(path, "/suppliers"):
		return Workflow{"登録取引先", "apartment"}, true
	case hasPrefix(path, "/receipt-invoices"):
		return Workflow{"受取請求書", "receipt_long_blue"}, true
	}
	return Workflow{}, false
}

func hasPrefix(path, prefix string) bool {
	return path == prefix || len(path) > len(prefix) && path[:len(prefix)] == prefix && path[len(prefix)] == '/'
}

func Itoa(n int) string { return strconv.Itoa(n) }
