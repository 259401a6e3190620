package web

// Who may open a page.
const (
	Public      = "public"
	SignedIn    = "signed_in"
	Collections = "collections" // corporations that may send card-payment requests
	Operator    = "operator"    // the operator console (/ops), never a buyer
)

// Page is a screen's path and title, declared once in its area: the handler renders
// Title, routes.go routes Path, and handlers.Pages lists it for the browser tests and
// the page-weight script, which visit every page.
type Page struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Access string `json:"access"`
	// Island names the island the page always carries (islands/<name>); pages without
	// one ship no JavaScript, which the browser tests check on every other page.
	Island string `json:"island,omitempty"`
}
