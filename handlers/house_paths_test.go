package handlers_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each path is declared once, as a web.Page or a …Path / …Pattern constant beside the
// handler in the area that serves it, and the route table routes that name: a literal
// in routes.go would be a second spelling of a path that handlers and tests also spell,
// and the two drift apart unnoticed.

// literalPathsAllowed are the only literals a route call may use: "" for a group that
// only adds middleware (it names no path), "/" for the root, which only redirects to
// the sign-in page, and "/*" for the not-found catch-all, which is no page's path.
var literalPathsAllowed = map[string][]string{
	"Group":         {""},
	"GET":           {"/"},
	"RouteNotFound": {"/*"},
}

// routePathLiterals names each route call in the Go file at path whose path argument
// is, or contains, a string literal (a concatenation such as FilePath+":id" too).
func routePathLiterals(t *testing.T, path string) (literals []string, calls int) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	require.NoError(t, err)
	// The route methods echo's *Echo and *Group share, and the index of the path among
	// each one's arguments (Match takes the methods first).
	pathArg := map[string]int{"GET": 0, "POST": 0, "PUT": 0, "PATCH": 0, "DELETE": 0, "HEAD": 0, "OPTIONS": 0,
		"CONNECT": 0, "TRACE": 0, "Any": 0, "Match": 1, "Group": 0, "RouteNotFound": 0, "Static": 0, "File": 0}
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		var arg ast.Expr
		if i, ok := pathArg[sel.Sel.Name]; ok && i < len(call.Args) {
			arg = call.Args[i]
		} else if sel.Sel.Name == "AddRoute" && len(call.Args) == 1 {
			// AddRoute(echo.Route{Path: …}): the path is a field.
			if lit, ok := call.Args[0].(*ast.CompositeLit); ok {
				for _, el := range lit.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Path" {
							arg = kv.Value
						}
					}
				}
			}
		}
		if arg == nil {
			return true
		}
		calls++
		if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(literalPathsAllowed[sel.Sel.Name], v) {
				return true
			}
		}
		ast.Inspect(arg, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				literals = append(literals, fmt.Sprintf("%s: .%s(%s, …)", fset.Position(call.Pos()), sel.Sel.Name, lit.Value))
			}
			return true
		})
		return true
	})
	return literals, calls
}

// Every route in the route table takes its path from a declared name.
func TestHouseRoutePathsAreDeclared(t *testing.T) {
	literals, calls := routePathLiterals(t, "routes.go")
	// The table is read at all: a parse that finds no route calls would pass anything.
	require.Greater(t, calls, 100, "route calls found in routes.go")
	require.Empty(t, literals, "route paths spelled as literals in routes.go; declare each in the area that serves it "+
		"(a web.Page, or a const …Path / …Pattern beside its handler) and route the name:\n%s", strings.Join(literals, "\n"))
}

// The check itself: it names a literal path, a literal inside a concatenation, and
// lets names and the allowed literals through.
func TestHouseRoutePathLiteralsCheck(t *testing.T) {
	src := `package handlers
func routes(e *echo.Echo) {
	e.GET("/", redirectTo(signin.SignInPage.Path))
	e.POST("/signout", h.SignOut)
	g := e.Group("", mw)
	g.GET(payments.FilePath+":id", h.ShowFilePage)
	g.GET(signin.SignInPage.Path, h.ShowSignInPage)
	e.Match([]string{"GET"}, "/match", h.M)
	e.RouteNotFound("/*", notFound)
}
`
	path := t.TempDir() + "/routes.go"
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	literals, calls := routePathLiterals(t, path)
	require.Equal(t, 7, calls)
	require.Len(t, literals, 3, strings.Join(literals, "\n"))
	require.Contains(t, literals[0], `.POST("/signout", …)`)
	require.Contains(t, literals[1], `.GET(":id", …)`)
	require.Contains(t, literals[2], `.Match("/match", …)`)
}
