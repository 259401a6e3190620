package handlers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The kernel knows no page: handlers/web declares no page (a web.Page value, a …Path,
// …Pattern or …Page name) and spells no path. A page's path is declared in its area
// (TestHouseRoutePathsAreDeclared); the few the kernel must know to be safe (SafeRedirect
// never sends anyone back to signing in or out) come from handlers/links.

func TestHouseKernelDeclaresNoPage(t *testing.T) {
	files, err := filepath.Glob("web/*.go")
	require.NoError(t, err)
	var broken []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, f, src, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for _, name := range n.Names {
					if hasAnySuffix(name.Name, "Path", "Pattern", "Page") {
						broken = append(broken, fset.Position(name.Pos()).String()+": declares "+name.Name)
					}
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Page" {
					broken = append(broken, fset.Position(n.Pos()).String()+": a Page value")
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(n.Value)
				if err == nil && strings.HasPrefix(v, "/") && len(v) > 1 && v[1] >= 'a' && v[1] <= 'z' {
					broken = append(broken, fset.Position(n.Pos()).String()+": spells the path "+strconv.Quote(v))
				}
			}
			return true
		})
	}
	require.Greater(t, len(files), 10, "the kernel's files are read")
	require.Empty(t, broken, "the kernel (handlers/web) knows no page; declare these in the area that serves them:\n%s", strings.Join(broken, "\n"))
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}
