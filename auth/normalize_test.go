package auth

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalizeInput(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", "123456", "123456"},
		{"full-width digits", "１２３４５６", "123456"},
		{"spaces around and inside", " 123 456\t\n", "123456"},
		{"ideographic space", "123\u3000456", "123456"},
		{"hyphen", "123-456", "123456"},
		{"full-width hyphen", "１２３－４５６", "123456"},
		{"katakana prolonged sound mark", "123ー456", "123456"},
		{"half-width prolonged sound mark", "123ｰ456", "123456"},
		{"minus sign and en dash", "12−34–56", "123456"},
		{"soft hyphen", "123\u00ad456", "123456"},
		{"full-width letters keep case", "ＡＢｃｄ", "ABcd"},
		{"other characters kept", "12a4!6", "12a4!6"},
		{"empty", "", ""},
		{"only separators", " - ー ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, normalizeInput(tt.in))
		})
	}
}
