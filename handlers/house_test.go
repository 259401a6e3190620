package handlers_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rules of the house (README "The house"): each area is a room of its own, and what
// two rooms share lives a level down. This test reads every package's imports with
// `go list` and names each import that breaks a rule, so the layout stays as it is
// written when the product grows.

const module = "cardpay"

// areas are the packages handlers/<area>, one per first URL segment; ops is the
// operator console (/ops).
var areas = []string{"signin", "signup", "password", "myaccount", "suppliers", "payments", "collections", "receivedinvoices", "supplierupload", "consent", "notifications", "inquiries", "info", "dev", "ops"}

// domain are the packages of product rules, credentials, reference data and mail that
// any handler may use. nta and the card gateway are reached through a service in
// account or cards, and the OCR (ocr, invoiceread) through invoicefiles (the reading job
// and the match), never from a page.
// files (the invoice file store and its signed URLs) is here too: the upload page keeps
// the bytes and links to them.
var domain = []string{"pay", "calendar", "account", "cards", "invoices", "invoicefiles", "auth", "banks", "postal", "mail", "static", "files", "receipts", "oauth"}

// gatewayUsers are the packages that may import the card gateway (besides its own).
var gatewayUsers = []string{"cards", "invoices", "cmd/server", "handlers/webtest"}

// lowLevel are the packages below store and views: rules, data and adapters. They import
// nothing of the web side. mail is a level up: its development mailbox keeps mails in
// store, so it may import store (and store never imports mail).
var lowLevel = []string{"pay", "auth", "banks", "postal", "nta", "gateway", "static", "migrations", "invoiceread", "ocr", "files"}

type goPackage struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func listPackages(t *testing.T) []goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", module+"/...")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	var pkgs []goPackage
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p goPackage
		require.NoError(t, dec.Decode(&p))
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

// rel is an import path inside the module without the module prefix ("handlers/web"),
// or "" for the standard library and other modules.
func rel(path string) string {
	if path == module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return ""
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func areaOf(p string) string {
	rest, ok := strings.CutPrefix(p, "handlers/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if slices.Contains(areas, name) {
		return name
	}
	return ""
}

func viewsAreaOf(p string) string {
	rest, ok := strings.CutPrefix(p, "views/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if slices.Contains(areas, name) {
		return name
	}
	return ""
}

func inAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if under(p, d) {
			return true
		}
	}
	return false
}

// importRule says why pkg may not import imp, or "" when it may. test is true for the
// imports of _test.go files, which may also use the harnesses.
func importRule(pkg, imp string, test bool) string {
	// The card gateway is reached only through the services that own the card and the
	// money (cards, invoices); cmd/server and the test harness build it, its adapters
	// implement it, and tests may drive it directly.
	if !test && under(imp, "gateway") && !under(pkg, "gateway") && !inAny(pkg, gatewayUsers) {
		return "only the services (cards, invoices) reach the card gateway; cmd/server and webtest build it"
	}
	if test {
		switch {
		case imp == "store/storetest", imp == "mail/mailtest", imp == "ocr/invoicegen":
			// The harnesses, and the invoice generator that makes test invoices.
			return ""
		case (imp == "handlers/webtest" || imp == "handlers") && under(pkg, "handlers"):
			return ""
		}
	}
	switch {
	case areaOf(pkg) != "":
		a := areaOf(pkg)
		switch {
		case imp == "handlers/web", imp == "handlers/links", imp == "views", imp == "views/ui", imp == "store":
			return ""
		case viewsAreaOf(imp) == a:
			return ""
		case inAny(imp, domain) && !strings.Contains(imp, "/internal/"):
			return ""
		case areaOf(imp) != "":
			return "an area never imports another area: move what both need down (web, views/ui, store, pay or account)"
		default:
			return "an area imports only web, views, views/ui, its own views/" + a + ", store and the domain packages"
		}
	case pkg == "handlers/api":
		if areaOf(imp) != "" || imp == "." || imp == "handlers" || imp == "handlers/webtest" {
			return "the API imports web and the domain packages, never an area"
		}
	case pkg == "handlers/links":
		return "links declares paths and imports nothing of the module"
	case pkg == "handlers/web":
		if under(imp, "handlers") && imp != "handlers/links" {
			return "the kernel knows no page: it imports no area, no API and not the route table"
		}
		// The kernel is HTTP glue: reading an invoice, matching it and drawing receipts are
		// the services' (invoicefiles, receipts), which reach it through Deps.
		if inAny(imp, []string{"invoiceread", "receipts", "ocr"}) {
			return "the kernel is HTTP glue: it imports no OCR, no invoice reading and no receipts (they are invoicefiles' and receipts' services in Deps)"
		}
	case pkg == "handlers/webtest":
		return ""
	case under(pkg, "views"):
		if imp == "store" || under(imp, "store") {
			return "views never import store: handlers turn rows into view models"
		}
		if under(imp, "handlers") {
			return "views never import handlers"
		}
		if a := viewsAreaOf(imp); a != "" && a != viewsAreaOf(pkg) {
			return "an area's templates never import another area's: move the piece to views or views/ui"
		}
	case pkg == "calendar":
		// Japan's dates and bank days are the bottom: pay's transfer dates stand on them.
		return "calendar imports nothing of the module"
	case under(pkg, "store"):
		if !inAny(imp, []string{"store", "pay", "migrations", "auth"}) {
			return "store imports nothing above it (only pay, auth and migrations)"
		}
	case under(pkg, "mail"):
		if under(imp, "handlers") || under(imp, "views") || imp == "account" || under(imp, "cmd") {
			return "mail imports nothing above store"
		}
	case under(pkg, "jobs"):
		// The runner knows no kind of job: whoever does the work registers a handler.
		if imp != "store" {
			return "jobs imports only store: handlers are registered by the services that do the work"
		}
	case under(pkg, "gateway"):
		// The card gateway, its PSPs (the sandbox keeps its own tables with sqlx and goose,
		// never through store) and its contract table know the card words of pay and
		// nothing above.
		if !under(imp, "gateway") && imp != "pay" {
			return "the card gateway imports only gateway and pay"
		}
	case pkg == "invoices/moneysuite":
		// The money suite (task test:money) proves the payment rules from outside, as the
		// server runs them: the services, the job runner and the sandbox PSP.
		if !test || !inAny(imp, []string{"invoices", "store", "pay", "calendar", "gateway", "jobs"}) {
			return "the money suite is tests only, over invoices, store, pay, calendar, gateway and jobs"
		}
	case under(pkg, "invoices"):
		if !inAny(imp, []string{"store", "pay", "calendar", "gateway", "invoiceread", "banks"}) {
			return "invoices imports only store, pay, calendar, gateway, invoiceread and banks: the pages and the API call it, never the reverse"
		}
	case under(pkg, "invoiceread"):
		// Reading an invoice is pure rules on text (table tests, no tools): the OCR adapter
		// hands it lines, never the other way round.
		if imp != "pay" && imp != "banks" {
			return "invoiceread imports only pay and banks: it reads text, it runs no tool and stores nothing"
		}
	case inAny(pkg, lowLevel):
		if under(imp, "handlers") || under(imp, "views") || under(imp, "store") || imp == "account" || under(imp, "cmd") {
			return "rules, data and adapters import nothing above them"
		}
	}
	return ""
}

func TestHouseRules(t *testing.T) {
	pkgs := listPackages(t)
	var broken []string
	seenAreas := 0
	for _, p := range pkgs {
		pkg := rel(p.ImportPath)
		if areaOf(pkg) != "" {
			seenAreas++
		}
		check := func(imports []string, test bool) {
			for _, i := range imports {
				imp := rel(i)
				if imp == "" || imp == pkg {
					continue
				}
				if why := importRule(pkg, imp, test); why != "" {
					broken = append(broken, module+"/"+pkg+" imports "+module+"/"+imp+": "+why)
				}
			}
		}
		check(p.Imports, false)
		check(append(slices.Clone(p.TestImports), p.XTestImports...), true)
	}
	require.GreaterOrEqual(t, seenAreas, 9, "the areas are packages of their own")
	require.Empty(t, broken, "imports that break the house rules:\n%s", strings.Join(broken, "\n"))
}

// Routes are added only in routes.go: no area or kernel file calls echo's route methods.
func TestRoutesOnlyInRouteTable(t *testing.T) {
	routeMethods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "Any", "Match", "AddRoute", "Group", "RouteNotFound"}
	var found []string
	for _, p := range listPackages(t) {
		pkg := rel(p.ImportPath)
		if areaOf(pkg) == "" && pkg != "handlers/web" {
			continue
		}
		for _, f := range p.GoFiles {
			path := filepath.Join(p.Dir, f)
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			require.NoError(t, err)
			// A package's function of the same name (invoiceread.Match) is no route.
			imported := map[string]bool{}
			for _, im := range file.Imports {
				name := strings.Trim(im.Path.Value, `"`)
				name = name[strings.LastIndex(name, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				imported[name] = true
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && slices.Contains(routeMethods, sel.Sel.Name) {
					if x, ok := sel.X.(*ast.Ident); ok && imported[x.Name] {
						return true
					}
					found = append(found, pkg+"/"+f+": ."+sel.Sel.Name+"(…)")
				}
				return true
			})
		}
	}
	require.Empty(t, found, "routes are added only in handlers/routes.go:\n%s", strings.Join(found, "\n"))
}

// The rule table itself: what it allows and refuses, so a later edit of it is deliberate.
func TestImportRule(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		test     bool
		ok       bool
	}{
		{"handlers/suppliers", "handlers/web", false, true},
		{"handlers/suppliers", "views/suppliers", false, true},
		{"handlers/suppliers", "views/signin", false, false},
		{"handlers/suppliers", "handlers/signin", false, false},
		{"handlers/suppliers", "store", false, true},
		{"handlers/suppliers", "pay", false, true},
		{"handlers/suppliers", "nta", false, false},
		{"handlers/myaccount", "cards", false, true},
		{"handlers/payments", "invoices", false, true},
		{"handlers/api", "invoices", false, true},
		{"invoices", "cards", false, false},
		{"invoices", "handlers/web", false, false},
		{"invoices", "gateway", false, true},
		{"handlers/myaccount", "gateway", false, false},
		{"handlers/api", "cards", false, true},
		{"handlers/suppliers", "handlers/api", false, false},
		{"handlers/suppliers", "handlers/webtest", true, true},
		{"handlers/suppliers", "handlers/webtest", false, false},
		{"handlers/api", "handlers/web", false, true},
		{"handlers/api", "handlers/signin", false, false},
		{"handlers/api", "handlers", false, false},
		{"handlers/web", "handlers/suppliers", false, false},
		{"handlers/web", "invoicefiles", false, true},
		{"handlers/web", "invoiceread", false, false},
		{"handlers/web", "receipts", false, false},
		{"handlers/web", "ocr", false, false},
		{"handlers/web", "gateway", false, false},
		{"handlers/api", "gateway", false, false},
		{"handlers/api", "gateway", true, true},
		{"account", "gateway", false, false},
		{"handlers/webtest", "gateway/sandbox", false, true},
		{"cmd/server", "gateway", false, true},
		{"cards", "gateway", false, true},
		{"handlers/payments", "invoicefiles", false, true},
		{"handlers/api", "invoicefiles", false, true},
		{"handlers/payments", "invoiceread", false, false},
		{"views/suppliers", "store", false, false},
		{"views", "store", false, false},
		{"views/suppliers", "views", false, true},
		{"views/suppliers", "views/signup", false, false},
		{"store", "mail", false, false},
		{"store", "pay", false, true},
		{"nta", "store", false, false},
		{"mail", "store", false, true},
		{"mail", "handlers/web", false, false},
		{"pay", "handlers/web", false, false},
		{"cmd/server", "handlers/suppliers", false, true},
		{"gateway/stripe", "pay", false, true},
		{"gateway/stripe", "store", false, false},
		{"gateway/stripe", "handlers/web", false, false},
		{"cmd/server", "gateway/stripe", false, true},
		{"gateway/sandbox", "store", false, false},
		{"gateway/sandbox", "handlers/api", false, false},
		{"gateway/sandbox", "cards", false, false},
		{"gateway/sandbox", "gateway", false, true},
		{"gateway/sandbox", "gateway/sandbox/migrations", false, true},
		{"gateway/sandbox", "store/storetest", true, true},
		{"gateway/sandbox", "gateway/gatewaytest", true, true},
		{"gateway/gatewaytest", "pay", false, true},
		{"gateway/gatewaytest", "store", false, false},
		{"gateway", "pay", false, true},
		{"gateway", "account", false, false},
		{"cards", "gateway", false, true},
		{"cmd/server", "gateway/sandbox", false, true},
		{"jobs", "store", false, true},
		{"jobs", "account", false, false},
		{"jobs", "mail", false, false},
		{"jobs", "handlers/web", false, false},
		{"jobs", "store/storetest", true, true},
		{"handlers/payments", "ocr/invoicegen", true, true},
		{"handlers/payments", "ocr/invoicegen", false, false},
		{"handlers/suppliers", "jobs", false, false},
		{"cmd/server", "jobs", false, true},
		{"handlers/payments", "files", false, true},
		{"handlers/api", "files", false, true},
		{"files", "store", false, false},
		{"files", "handlers/web", false, false},
		{"files", "pay", false, true},
		{"invoiceread", "pay", false, true},
		{"invoiceread", "banks", false, true},
		{"calendar", "pay", false, false},
		{"pay", "calendar", false, true},
		{"invoices", "calendar", false, true},
		{"invoiceread", "store", false, false},
		{"invoiceread", "ocr", false, false},
	} {
		got := importRule(tc.pkg, tc.imp, tc.test) == ""
		require.Equal(t, tc.ok, got, "%s → %s (test %v): %q", tc.pkg, tc.imp, tc.test, importRule(tc.pkg, tc.imp, tc.test))
	}
}
