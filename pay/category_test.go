package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestBusinessCategories(t *testing.T) {
	require.Len(t, pay.BusinessCategories, 20)
	names := map[string]bool{}
	for i, c := range pay.BusinessCategories {
		assert.Equal(t, string(rune('A'+i)), c.Code, "classification order: %s", c.Name)
		assert.NotEmpty(t, c.Name)
		assert.False(t, names[c.Name], "duplicate %s", c.Name)
		names[c.Name] = true
	}
}

func TestBusinessCategoryByCode(t *testing.T) {
	tests := []struct {
		code     string
		wantName string
		wantOK   bool
	}{
		{"A", "農業，林業", true},
		{"E", "製造業", true},
		{"G", "情報通信業", true},
		{"I", "卸売業，小売業", true},
		{"R", "サービス業（他に分類されないもの）", true},
		{"T", "分類不能の産業", true},
		{"U", "", false},
		{"a", "", false},
		{"Ａ", "", false},
		{" A", "", false},
		{"AB", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			got, ok := pay.BusinessCategoryByCode(tt.code)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantName, got.Name)
			if ok {
				assert.Equal(t, tt.code, got.Code)
			}
		})
	}
}
