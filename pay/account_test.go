package pay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestAccountType(t *testing.T) {
	tests := []struct {
		typ   pay.AccountType
		code  int
		valid bool
		label string
	}{
		{pay.AccountDefault, 0, false, "未選択"},
		{pay.AccountCurrent, 1, true, "当座"},
		{pay.AccountOrdinary, 2, true, "普通"},
		{pay.AccountType(3), 3, false, "不明"},
		{pay.AccountType(-1), -1, false, "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.typ), "API and database code must not change")
			assert.Equal(t, tt.valid, tt.typ.Valid())
			assert.Equal(t, tt.label, tt.typ.Label())
		})
	}
}

// The zengin file swaps our codes for 普通 and 当座; a mistake here sends a
// transfer to the wrong kind of account, so both directions are pinned.
func TestAccountTypeZenginCode(t *testing.T) {
	tests := []struct {
		name   string
		typ    pay.AccountType
		zengin int
	}{
		{"普通 is 2 here, 1 in zengin", pay.AccountOrdinary, 1},
		{"当座 is 1 here, 2 in zengin", pay.AccountCurrent, 2},
		{"default has no zengin code", pay.AccountDefault, 0},
		{"unknown has no zengin code", pay.AccountType(9), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.zengin, tt.typ.ZenginCode())
		})
	}
}

func TestHolderCheckKinds(t *testing.T) {
	tests := []struct {
		kind pay.HolderCheckKind
		code int
	}{
		{pay.HolderCheckNormal, 2},
		{pay.HolderCheckPersonal, 4},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.code, int(tt.kind))
	}
}

func TestNormalizeAccountNumber(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		err  error
	}{
		{"seven digits", "1234567", "1234567", nil},
		{"leading zeros kept", "0012345", "0012345", nil},
		{"full-width digits", "１２３４５６７", "1234567", nil},
		{"hyphen", "123-4567", "1234567", nil},
		{"full-width hyphen and spaces", " １２３－４５６７　", "1234567", nil},
		{"empty", "", "", pay.ErrAccountNumberRequired},
		{"spaces only", " 　", "", pay.ErrAccountNumberRequired},
		{"six digits", "123456", "", pay.ErrAccountNumberFormat},
		{"eight digits (ゆうちょ 記号番号 is not a zengin number)", "12345678", "", pay.ErrAccountNumberFormat},
		{"letter", "123456A", "", pay.ErrAccountNumberFormat},
		{"hyphens only", "---", "", pay.ErrAccountNumberFormat},
		{"Arabic-Indic digits", "١٢٣٤٥٦٧", "", pay.ErrAccountNumberFormat},
		{"invalid UTF-8", "123\xff4567", "", pay.ErrAccountNumberFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pay.NormalizeAccountNumber(tt.in)
			assert.Equal(t, tt.want, got)
			assert.ErrorIs(t, err, tt.err)
			if tt.err == nil {
				assert.NoError(t, err)
			}
		})
	}
}

func TestAccountNumberMessages(t *testing.T) {
	assert.Equal(t, "口座番号を入力してください", pay.ErrAccountNumberRequired.Error())
	assert.Equal(t, "口座番号は7桁の数字で入力してください", pay.ErrAccountNumberFormat.Error())
}

func TestAccountIsNew(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	for _, c := range []struct {
		name  string
		first *time.Time
		want  bool
	}{
		{"never paid", nil, true},
		{"first paid today", at(time.Hour), true},
		{"first paid 29 days ago", at(29 * 24 * time.Hour), true},
		{"first paid a second short of 30 days ago", at(pay.NewAccountPeriod - time.Second), true},
		{"first paid exactly 30 days ago", at(pay.NewAccountPeriod), false},
		{"first paid a year ago", at(365 * 24 * time.Hour), false},
	} {
		assert.Equal(t, c.want, pay.AccountIsNew(c.first, now), c.name)
	}
}
