package account_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/account"
)

func TestCheckPasswordConfirmation(t *testing.T) {
	tests := []struct {
		name                   string
		password, confirmation string
		want                   string
	}{
		{"matches", "saisettei2026pass", "saisettei2026pass", ""},
		{"empty", "saisettei2026pass", "", "確認のため、新しいパスワードをもう一度入力してください"},
		{"differs", "saisettei2026pass", "saisettei2026pas", "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"},
		{"differs by a trailing space", "saisettei2026pass", "saisettei2026pass ", "新しいパスワード（確認用）が一致しません。同じパスワードを入力してください"},
		{"both empty", "", "", "確認のため、新しいパスワードをもう一度入力してください"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, account.CheckPasswordConfirmation(tt.password, tt.confirmation))
		})
	}
}
