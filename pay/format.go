package pay

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Asia/Tokyo must resolve even on hosts without zoneinfo.
	"unicode"

	"cardpay/calendar"
)

// InvoiceNumber is an invoice's display number, "I-" and the id padded to
// eight digits (SPEC §3). Longer ids are shown in full, never truncated.
func InvoiceNumber(id int64) string {
	return fmt.Sprintf("I-%08d", id)
}

// PostalCode formats a Japanese postal code as "〒123-4567" (SPEC §3). The
// input may carry a leading 〒, a hyphen, spaces or full-width digits; it
// returns "" unless exactly seven digits remain.
func PostalCode(digits string) string {
	d := NormalizeCode(strings.TrimPrefix(strings.TrimSpace(digits), "〒"))
	if len(d) != 7 || !AllDigits(d) {
		return ""
	}
	return "〒" + d[:3] + "-" + d[3:]
}

// Yen formats an amount of yen as "¥1,234,567", or "-¥1,234" when negative
// (refunds and corrections), with the sign before the mark as Japanese
// accounting screens print it.
func Yen(amount int64) string {
	s := strconv.FormatInt(amount, 10)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3 + 3)
	b.WriteString(sign)
	b.WriteString("¥")
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

var tokyo = calendar.Tokyo()

// Tokyo is Japan's time zone (calendar.Tokyo), in which every date shown to users and
// every business cut-off (such as the 15:00 transfer deadline) is reckoned.
func Tokyo() *time.Location { return tokyo }

// JapaneseDate formats t as "2026年12月25日" in Japan time, month and day
// without leading zeros as Japanese prose writes them.
func JapaneseDate(t time.Time) string {
	return t.In(tokyo).Format("2006年1月2日")
}

// JapaneseDateTime formats t as "2026年12月25日 09:05" in Japan time; the
// clock is zero-padded and 24-hour so times line up in lists.
func JapaneseDateTime(t time.Time) string {
	return t.In(tokyo).Format("2006年1月2日 15:04")
}

// NormalizeCode prepares a number a person typed (corporate or registration
// number, postal code, card number) for checking: full-width letters and
// digits become half-width, letters upper-case, and spaces and hyphen-like
// marks are dropped. Other characters are kept, so validators still reject
// them. The validators in this package do not normalise by themselves.
func NormalizeCode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || isHyphenLike(r):
			continue
		case r >= '！' && r <= '～':
			// The full-width ASCII block sits at a fixed offset from ASCII.
			r -= '！' - '!'
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

func isHyphenLike(r rune) bool {
	switch r {
	case '-', '‐', '‑', '‒', '–', '—', '―', '−', '－', 'ー', 'ｰ':
		return true
	}
	return false
}

// AllDigits reports whether s holds only the ASCII digits 0–9 (true for ""; callers
// check the length they need). Run NormalizeCode first to accept what people type.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// SpreadsheetCell keeps a spreadsheet from running a CSV cell as a formula (a name or
// number someone typed that starts with =, +, -, @, a tab or a carriage return): the cell
// starts with an apostrophe instead, which the spreadsheet shows as text.
func SpreadsheetCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
