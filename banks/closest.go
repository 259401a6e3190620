package banks

import (
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Closest answers the bank a name read from paper means: the bank of that name, or
// else the one bank whose name is one character away from it (an insertion, a deletion
// or a substitution: OCR reads みずほ銀行 as みずは銀行 or みずはほ銀行). Two banks
// one character away (静岡銀行 and 福岡銀行 from 静冈銀行) mean neither: a guess
// between two banks is worse than none. Names shorter than four characters are only
// taken exactly. Widths do not count: zengin's 三菱ＵＦＪ銀行 is an invoice's 三菱UFJ銀行.
func Closest(name string) (Bank, bool) { return load().closest(name) }

func (t *table) closest(name string) (Bank, bool) {
	if t == nil || name == "" {
		return Bank{}, false
	}
	name = width.Fold.String(name)
	for i := range t.banks {
		if width.Fold.String(t.banks[i].Name) == name {
			return t.banks[i].Bank, true
		}
	}
	if utf8.RuneCountInString(name) < 4 {
		return Bank{}, false
	}
	want := []rune(name)
	var found *bankEntry
	for i := range t.banks {
		b := &t.banks[i]
		if oneEdit(want, []rune(width.Fold.String(b.Name))) {
			if found != nil {
				return Bank{}, false
			}
			found = b
		}
	}
	if found == nil {
		return Bank{}, false
	}
	return found.Bank, true
}

// oneEdit says whether a and b differ by exactly one inserted, deleted or replaced rune.
func oneEdit(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		if i == len(a) {
			return false // equal
		}
		return string(a[i+1:]) == string(b[i+1:])
	}
	return string(a[i:]) == string(b[i+1:])
}

// WithBranch answers the banks that have a branch of that name (zengin's name, as
// Branch.Name: 第一営業, 渋谷; widths do not count). Most names belong to one bank alone
// (7,984 of the list's 12,467 names: 楽天銀行's 第一営業, ゆうちょ銀行's 〇一八), so a
// branch read from paper whose bank was not names that bank.
func WithBranch(name string) []Bank { return load().withBranch(name) }

func (t *table) withBranch(name string) []Bank {
	if t == nil || name == "" {
		return nil
	}
	name = width.Fold.String(name)
	var out []Bank
	for i := range t.banks {
		for _, br := range t.banks[i].branches {
			if width.Fold.String(br.Name) == name {
				out = append(out, t.banks[i].Bank)
				break
			}
		}
	}
	return out
}
