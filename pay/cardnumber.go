package pay

// The card data rule (割賦販売法, and our own): no card number is ever stored or logged.
// FindCardNumbers is how the test run checks that rule on everything it wrote — the
// database dump and every log — so it errs on the side of finding too much: any number
// of 13 to 19 digits that passes the Luhn check, written in one piece or in groups
// separated by single spaces or hyphens, as people and forms write card numbers.

// Luhn reports whether digits (ASCII digits only) pass the Luhn (mod 10) check.
func Luhn(digits string) bool {
	if digits == "" {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// FoundCardNumber is a card-like number found in a text: where it starts (byte offset)
// and what may be said of it in a report, never the number itself.
type FoundCardNumber struct {
	Offset int
	Length int    // digits
	Masked string // first digit and last 4 only, e.g. 4••••••••••••1111
}

// FindCardNumbers finds every Luhn-valid number of 13–19 digits in text. A number counts
// only when it stands on its own: a digit run inside a longer word (a hex digest, a
// token such as tok_4111…) is part of that word, not a card number. Separators between
// digit groups may be one space or one hyphen.
func FindCardNumbers(text string) []FoundCardNumber {
	var found []FoundCardNumber
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isWord := func(c byte) bool {
		return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	for i := 0; i < len(text); {
		if !isDigit(text[i]) || (i > 0 && isWord(text[i-1])) {
			i++
			continue
		}
		// Read digits and single separators between digits.
		start, j := i, i
		digits := make([]byte, 0, 24)
		for j < len(text) {
			c := text[j]
			if isDigit(c) {
				digits = append(digits, c)
				j++
				continue
			}
			if (c == ' ' || c == '-') && j+1 < len(text) && isDigit(text[j+1]) && len(digits) > 0 {
				j++
				continue
			}
			break
		}
		if j < len(text) && isWord(text[j]) {
			// Glued to a word: skip the rest of that word.
			for j < len(text) && isWord(text[j]) {
				j++
			}
			i = j
			continue
		}
		found = append(found, cardNumbersIn(start, digits)...)
		i = j
	}
	return found
}

// cardNumbersIn checks a run of digits: the whole run when it is 13–19 digits long. A
// longer run (grouped numbers one after another) is not a card number; neither is a
// shorter one.
func cardNumbersIn(offset int, digits []byte) []FoundCardNumber {
	n := len(digits)
	if n < 13 || n > 19 || !Luhn(string(digits)) {
		return nil
	}
	masked := make([]rune, 0, n)
	for k, d := range digits {
		if k == 0 || k >= n-4 {
			masked = append(masked, rune(d))
		} else {
			masked = append(masked, '•')
		}
	}
	return []FoundCardNumber{{Offset: offset, Length: n, Masked: string(masked)}}
}
