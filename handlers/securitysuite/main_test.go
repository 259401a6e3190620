// Package securitysuite_test is the security suite of issue 15 (`task test:security`, part
// of the README's test command): each test attacks the whole application (webtest's real
// server, PostgreSQL, SMTP) and records one or more rows of a table — a figure, and
// whether it holds. The table is printed at the end, whatever happened; a row that does
// not hold also fails its test.
package securitysuite_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"cardpay/handlers/webtest"
)

func TestMain(m *testing.M) { webtest.MainThen(m, printTable) }

// row is one line of the table.
type row struct {
	area   string // one of areaOrder
	what   string // what was tried
	figure string // what was measured
	holds  bool
}

var (
	rowsMu sync.Mutex
	rows   []row
)

// record adds a row to the table and fails t when the row does not hold.
func record(t *testing.T, area, what, figure string, holds bool) {
	t.Helper()
	rowsMu.Lock()
	rows = append(rows, row{area, what, figure, holds})
	rowsMu.Unlock()
	if !holds {
		t.Errorf("%s: %s: %s — does not hold", area, what, figure)
	}
}

// areaOrder is the order of the issues' lists: issue 15's areas, then issue 24's
// (businesses, operators, abuse).
var areaOrder = []string{"lockout", "limits", "enumeration", "CSRF", "bad input", "headers", "sessions",
	"businesses", "operators", "abuse"}

func printTable() {
	rowsMu.Lock()
	defer rowsMu.Unlock()
	slices.SortStableFunc(rows, func(a, b row) int {
		return slices.Index(areaOrder, a.area) - slices.Index(areaOrder, b.area)
	})
	w := [3]int{len("area"), len("what"), len("figure")}
	for _, r := range rows {
		w[0] = max(w[0], utf8.RuneCountInString(r.area))
		w[1] = max(w[1], utf8.RuneCountInString(r.what))
		w[2] = max(w[2], utf8.RuneCountInString(r.figure))
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
	line := func(a, b, c, d string) {
		fmt.Fprintf(os.Stdout, "| %s | %s | %s | %s |\n", pad(a, w[0]), pad(b, w[1]), pad(c, w[2]), pad(d, 5))
	}
	fmt.Println()
	fmt.Println("Security suite")
	line("area", "what", "figure", "holds")
	fmt.Fprintf(os.Stdout, "|%s|%s|%s|%s|\n", strings.Repeat("-", w[0]+2), strings.Repeat("-", w[1]+2), strings.Repeat("-", w[2]+2), strings.Repeat("-", 7))
	held := 0
	for _, r := range rows {
		h := "no"
		if r.holds {
			h, held = "yes", held+1
		}
		line(r.area, r.what, r.figure, h)
	}
	fmt.Printf("%d of %d rows hold\n", held, len(rows))
}
