package handlers_test

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A path one area sends a person to in another is declared once, in handlers/links, and
// spelt nowhere else: no Go file under handlers has a string literal that is one of those
// paths or starts with one followed by "/" or "?". So a redirect or link across areas
// cannot drift from the page it names. Tests and their harness (webtest) are clients:
// they spell the URLs a browser would.
func TestHouseCrossAreaPathsAreSpeltOnce(t *testing.T) {
	declared := linksPaths(t)
	require.Contains(t, declared, "SignIn", "handlers/links is read")
	var broken []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(path, "links/") || strings.HasPrefix(path, "webtest/") || strings.HasSuffix(path, "_templ.go") {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for name, p := range declared {
				// A page's path also starts the paths of its actions ("/signup/code/resend");
				// the API's are matched whole (its table spells its own paths under API).
				sub := !apiPaths[name] && strings.HasPrefix(v, strings.TrimSuffix(p, "/")+"/")
				if v == p || sub || strings.HasPrefix(v, p+"?") {
					broken = append(broken, fset.Position(lit.Pos()).String()+": "+strconv.Quote(v)+" is links."+name)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, broken, "paths declared in handlers/links spelt again; use the name:\n%s", strings.Join(broken, "\n"))
}

// apiPaths are the constants of links that are API paths (under links.API).
var apiPaths = map[string]bool{"API": true, "InvoiceFiles": true, "UploadInvoiceFile": true}

// linksPaths are handlers/links' string constants by name, evaluated (one may be built
// from another).
func linksPaths(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("links/*.go")
	require.NoError(t, err)
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		parsed = append(parsed, file)
	}
	pkg, err := (&types.Config{}).Check("cardpay/handlers/links", fset, parsed, nil)
	require.NoError(t, err, "links imports nothing, so it type-checks alone")
	out := map[string]string{}
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok && c.Val().Kind() == constant.String {
			out[name] = constant.StringVal(c.Val())
		}
	}
	return out
}
