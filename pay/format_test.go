package pay_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestInvoiceNumber(t *testing.T) {
	tests := []struct {
		id   int64
		want string
	}{
		{42, "I-00000042"},
		{1, "I-00000001"},
		{0, "I-00000000"},
		{12345678, "I-12345678"},
		{123456789, "I-123456789"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.InvoiceNumber(tt.id))
		})
	}
}

func TestPostalCode(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"1234567", "〒123-4567"},
		{"123-4567", "〒123-4567"},
		{"１２３－４５６７", "〒123-4567"},
		{"１２３ー４５６７", "〒123-4567"},
		{"〒100-8978", "〒100-8978"},
		{" 1000013 ", "〒100-0013"},
		{"123456", ""},
		{"12345678", ""},
		{"123-456a", ""},
		{"", ""},
		{"〒", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.PostalCode(tt.in))
		})
	}
}

func TestYen(t *testing.T) {
	tests := []struct {
		amount int64
		want   string
	}{
		{0, "¥0"},
		{1, "¥1"},
		{999, "¥999"},
		{1000, "¥1,000"},
		{1234567, "¥1,234,567"},
		{100000000, "¥100,000,000"},
		{-1234, "-¥1,234"},
		{-1, "-¥1"},
		{-999999, "-¥999,999"},
		{math.MaxInt64, "¥9,223,372,036,854,775,807"},
		{math.MinInt64, "-¥9,223,372,036,854,775,808"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.Yen(tt.amount))
		})
	}
}

func TestTokyo(t *testing.T) {
	_, offset := time.Date(2026, 7, 1, 0, 0, 0, 0, pay.Tokyo()).Zone()
	assert.Equal(t, 9*60*60, offset)
}

func TestJapaneseDateAndTime(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	tests := []struct {
		name     string
		at       time.Time
		date     string
		dateTime string
	}{
		{"Christmas morning in Tokyo", time.Date(2026, 12, 25, 0, 5, 0, 0, time.UTC),
			"2026年12月25日", "2026年12月25日 09:05"},
		{"UTC evening is the next day in Japan", time.Date(2026, 12, 24, 15, 0, 0, 0, time.UTC),
			"2026年12月25日", "2026年12月25日 00:00"},
		{"UTC just before 15:00 is still the same day", time.Date(2026, 12, 24, 14, 59, 0, 0, time.UTC),
			"2026年12月24日", "2026年12月24日 23:59"},
		{"no leading zeros in month and day", time.Date(2027, 1, 4, 23, 30, 0, 0, time.UTC),
			"2027年1月5日", "2027年1月5日 08:30"},
		{"other zones are converted", time.Date(2026, 3, 31, 20, 0, 0, 0, newYork),
			"2026年4月1日", "2026年4月1日 09:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.date, pay.JapaneseDate(tt.at))
			assert.Equal(t, tt.dateTime, pay.JapaneseDateTime(tt.at))
		})
	}
}

func TestNormalizeCode(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"7000012050002", "7000012050002"},
		{"７００００１２０５０００２", "7000012050002"},
		{"7-0000-1205-0002", "7000012050002"},
		{" 7 0000 1205 0002\n", "7000012050002"},
		{"7　0000　1205　0002", "7000012050002"},
		{"t7000012050002", "T7000012050002"},
		{"Ｔ７００００１２０５０００２", "T7000012050002"},
		{"123ー4567", "1234567"},
		{"123−4567", "1234567"},
		{"１２３‐４５６７", "1234567"},
		{"〒1234567", "〒1234567"},
		{"12a", "12A"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, pay.NormalizeCode(tt.in))
		})
	}
}
