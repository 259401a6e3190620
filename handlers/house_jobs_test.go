package handlers_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The house rule of background jobs: a job kind is declared beside the code that runs
// it, spelt <Thing>JobKind, and every job is registered from the one table in cmd/server
// (jobTable). These tests read the module's Go files (go/parser), so that a kind that
// drifts back into store, or one that is declared and never registered (its jobs would
// wait in the table for good: a runner claims only the kinds it knows), fails here.

// jobKindConsts are the constants named …JobKind that the package's non-test files
// declare. Tests may name kinds of their own (a stand-in job): those run nowhere.
func jobKindConsts(t *testing.T, p goPackage) []string {
	t.Helper()
	var kinds []string
	for _, f := range p.GoFiles {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, 0)
		require.NoError(t, err)
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if strings.HasSuffix(n.Name, "JobKind") {
						kinds = append(kinds, n.Name)
					}
				}
			}
		}
	}
	return kinds
}

// Store declares no job kind: the code that runs a job declares its kind and hands store
// what to enqueue in store's transaction (an also, or Notify's mail).
func TestStoreDeclaresNoJobKind(t *testing.T) {
	var found []string
	sawStore := false
	for _, p := range listPackages(t) {
		pkg := rel(p.ImportPath)
		if !under(pkg, "store") {
			continue
		}
		sawStore = sawStore || pkg == "store"
		for _, k := range jobKindConsts(t, p) {
			found = append(found, pkg+"."+k)
		}
	}
	require.True(t, sawStore, "package store is listed")
	require.Empty(t, found, "job kinds declared in store; declare them beside the code that runs them:\n%s", strings.Join(found, "\n"))
}

// Store reads and writes: what an event tells a buyer and where it links are the
// services' (store.Events, the reviews' also). So store's non-test code calls no pay
// function named …Link or …Notice, and no string literal of it starts with "/" (a page).
func TestStoreKnowsNoPageOrNotice(t *testing.T) {
	var found []string
	for _, p := range listPackages(t) {
		if rel(p.ImportPath) != "store" {
			continue
		}
		for _, f := range p.GoFiles {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			require.NoError(t, err)
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok {
						break
					}
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "pay" &&
						(strings.HasSuffix(sel.Sel.Name, "Link") || strings.HasSuffix(sel.Sel.Name, "Notice")) {
						found = append(found, fmt.Sprintf("%s: pay.%s", fset.Position(n.Pos()), sel.Sel.Name))
					}
				case *ast.BasicLit:
					if v, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && strings.HasPrefix(v, "/") {
						found = append(found, fmt.Sprintf("%s: %q", fset.Position(n.Pos()), v))
					}
				}
				return true
			})
		}
	}
	require.Empty(t, found, "store builds notices or page links; the services do:\n%s", strings.Join(found, "\n"))
}

// Every …JobKind constant of the module is registered in cmd/server's jobTable. The
// check is on the syntax of jobTable's body, not on text: a kind counts as registered
// when the body refers to it as <package>.<Name> with <package> one of the file's
// imports resolving to the package that declares it. So a comment or a string naming
// the kind does not count, nor does a constant of the same name in another package, nor
// a use elsewhere in cmd/server. It does not prove that each entry is paired with the
// right handler: cmd/server's own test and the suites that run the jobs see that.
func TestEveryJobKindIsInTheJobTable(t *testing.T) {
	pkgs := listPackages(t)
	var declared []string // "<import path>.<Name>"
	for _, p := range pkgs {
		for _, k := range jobKindConsts(t, p) {
			declared = append(declared, p.ImportPath+"."+k)
		}
	}
	require.GreaterOrEqual(t, len(declared), 10, "the module's job kinds are found")

	registered := map[string]bool{}
	sawTable := false
	for _, p := range pkgs {
		if rel(p.ImportPath) != "cmd/server" {
			continue
		}
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, 0)
			require.NoError(t, err)
			imports := map[string]string{} // name in the file → import path
			for _, im := range file.Imports {
				path, err := strconv.Unquote(im.Path.Value)
				require.NoError(t, err)
				name := path[strings.LastIndex(path, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				imports[name] = path
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || fn.Name.Name != "jobTable" || fn.Body == nil {
					continue
				}
				sawTable = true
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" {
						registered[imports[x.Name]+"."+sel.Sel.Name] = true
					}
					return true
				})
			}
		}
	}
	require.True(t, sawTable, "cmd/server declares func jobTable")
	var missing []string
	for _, k := range declared {
		if !registered[k] {
			missing = append(missing, k)
		}
	}
	require.Empty(t, missing, "job kinds not in cmd/server's jobTable (their jobs would never run):\n%s", strings.Join(missing, "\n"))
}
