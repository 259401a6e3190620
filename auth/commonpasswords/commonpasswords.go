// Package commonpasswords answers whether a password is on a published list of
// common passwords (issue 15). The list is list.txt, made by ./gen from the npm
// package @zxcvbn-ts/language-common (MIT; its licence heads the file): run
// `npm ci && go generate ./auth/commonpasswords` after changing the package's
// version in package.json. The file is committed, so the rule never depends on a
// build step having run.
package commonpasswords

//go:generate go run ./gen

import (
	_ "embed"
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// MinRunes is the shortest entry kept (in runes, after Fold). Shorter passwords
// fail account.ValidatePassword's length rule before the list is asked, so they
// would only make the file bigger; pay's tests check the two agree.
const MinRunes = 10

//go:embed list.txt
var listFile string

// Fold is the form passwords are compared in: NFKC (full-width letters and
// digits typed with a Japanese IME become ASCII) and lower case.
func Fold(s string) string { return strings.ToLower(norm.NFKC.String(s)) }

var set = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 2048)
	for _, line := range Entries(listFile) {
		// Folded again here, so a list made by an older gen still matches
		// exactly the way Contains folds.
		m[Fold(line)] = struct{}{}
	}
	return m
})

// Contains reports whether pw, folded, is on the list.
func Contains(pw string) bool {
	_, ok := set()[Fold(pw)]
	return ok
}

// Entries reads a list file: a header of "# " lines, one empty line, then one
// password a line (a password may itself start with "#", hence the empty line).
func Entries(file string) []string {
	_, body, ok := strings.Cut(file, "\n\n")
	if !ok {
		return nil
	}
	return strings.FieldsFunc(body, func(r rune) bool { return r == '\n' })
}
