package banks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClosestCorrectsOneMisreadCharacter(t *testing.T) {
	requireData(t)
	for _, c := range []struct{ in, want string }{
		{"みずほ銀行", "みずほ銀行"},     // exact
		{"みずは銀行", "みずほ銀行"},     // replaced
		{"みずはほ銀行", "みずほ銀行"},    // inserted
		{"みずほぼ銀行", "みずほ銀行"},    // inserted
		{"三井住友艮行", "三井住友銀行"},   // replaced
		{"静岡銀行", "静岡銀行"},       // exact, though 福岡銀行 is one away
		{"静冈銀行", "静岡銀行"},       // replaced
		{"?岡銀行", ""},           // 静岡 or 福岡: neither
		{"三菱UFJ銀行", "三菱ＵＦＪ銀行"}, // widths do not count
		{"三菱UF!銀行", "三菱ＵＦＪ銀行"}, // and one misread
		{"銀行", ""}, // too short to guess
		{"ずほ行", ""},
		{"どこにもない銀行名", ""},
	} {
		b, ok := Closest(c.in)
		assert.Equal(t, c.want != "", ok, c.in)
		assert.Equal(t, c.want, b.Name, c.in)
	}
}

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", false},
		{"abc", "abd", true},
		{"abc", "ab", true},
		{"abc", "xabc", true},
		{"abc", "axbc", true},
		{"abc", "axbyc", false},
		{"abc", "cba", false},
		{"", "a", true},
	} {
		assert.Equal(t, c.want, oneEdit([]rune(c.a), []rune(c.b)), "%q %q", c.a, c.b)
	}
}

func TestWithBranchNamesTheBanksThatHaveIt(t *testing.T) {
	requireData(t)
	for _, c := range []struct {
		name string
		want []string
	}{
		{"第一営業", []string{"楽天銀行"}}, // one bank's
		{"〇一八", []string{"ゆうちょ銀行"}},
		{"渋谷", nil}, // many banks': checked by count below
		{"どこにもない支店名", []string{}},
		{"", []string{}},
	} {
		got := WithBranch(c.name)
		if c.want == nil {
			assert.Greater(t, len(got), 10, c.name)
			continue
		}
		names := []string{}
		for _, b := range got {
			names = append(names, b.Name)
		}
		assert.Equal(t, c.want, names, c.name)
	}
}
