package pay

import (
	"fmt"
	"time"
)

// Service limits of DESIGN.md §4: one card payment (and one authorisation on a saved
// card) is between MinPaymentAmount and MaxPaymentAmount yen, and a buyer keeps at most
// MaxSavedCards cards.
const (
	MinPaymentAmount int64 = 1_000
	MaxPaymentAmount int64 = 10_000_000
	MaxSavedCards          = 5
)

// PaymentAmountMessage says what is wrong with an amount to be charged, or "" when it
// is within the service limits.
func PaymentAmountMessage(amount int64) string {
	if amount < MinPaymentAmount || amount > MaxPaymentAmount {
		return fmt.Sprintf("お支払い金額は%sから%sまでの範囲で指定してください", Yen(MinPaymentAmount), Yen(MaxPaymentAmount))
	}
	return ""
}

// CardExpired reports whether a card with expiry month/year can no longer be used at
// now. A card is good through the last day of its expiry month; the month turns in
// Japan time, where the service and its buyers are.
func CardExpired(month, year int, now time.Time) bool {
	if month < 1 || month > 12 || year < 1 {
		return true
	}
	firstInvalid := time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, Tokyo())
	return !now.Before(firstInvalid)
}

// CardExpiry is the expiry as printed on a card, MM/YY ("03/30").
func CardExpiry(month, year int) string {
	return fmt.Sprintf("%02d/%02d", month, year%100)
}
