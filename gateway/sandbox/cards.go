package sandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"strconv"
	"strings"
	"time"

	"cardpay/gateway"
	"cardpay/pay"
)

// Scenario is what a test card does when it is authorised.
type Scenario string

const (
	// ScenarioApproved authorises without a challenge (frictionless). Any Luhn-valid
	// number of an accepted brand that is not in TestCards plays it too.
	ScenarioApproved Scenario = "approved"
	// ScenarioChallenge asks for a 3-D Secure challenge that the shown passcode passes.
	ScenarioChallenge Scenario = "challenge"
	// ScenarioChallengeFails asks for a challenge that fails whatever is typed (G001).
	ScenarioChallengeFails Scenario = "challenge_fails"
	// ScenarioDecline declines with TestCard.Code.
	ScenarioDecline Scenario = "decline"
	// ScenarioTimeout authorises, commits, then answers later than any client waits:
	// the caller sees a timeout and must look the payment up.
	ScenarioTimeout Scenario = "timeout"
	// ScenarioRefused never becomes a token: the brand is not accepted (G031).
	ScenarioRefused Scenario = "refused"
)

// TestCard is one row of the test-card table (README "Test cards"). The numbers live
// here, in source, and nowhere else: no table of the sandbox stores one.
type TestCard struct {
	Number   string // grouped as printed on the card
	Brand    pay.CardBrand
	Scenario Scenario
	// Code is the result a decline (or a refusal) answers.
	Code gateway.ResultCode
	// Outcome says in a few words what the card does, for the README and the index page.
	Outcome string
}

// TestCards is the sandbox's test-card table. Every number is Luhn-valid (TestTestCards);
// any future expiry and any 3-digit security code will do.
var TestCards = []TestCard{
	{"4111 1111 1111 1111", pay.BrandVISA, ScenarioApproved, gateway.ResultApproved, "approved (frictionless)"},
	{"3530 1113 3330 0000", pay.BrandJCB, ScenarioApproved, gateway.ResultApproved, "approved (frictionless)"},
	{"5555 5555 5555 4444", pay.BrandMASTER, ScenarioApproved, gateway.ResultApproved, "approved (frictionless)"},
	{"4000 0000 0000 3220", pay.BrandVISA, ScenarioChallenge, gateway.ResultApproved, "3-D Secure challenge; passes with the shown passcode"},
	{"3566 0020 2036 0505", pay.BrandJCB, ScenarioChallenge, gateway.ResultApproved, "3-D Secure challenge; passes with the shown passcode"},
	{"4000 0084 0000 1629", pay.BrandVISA, ScenarioChallengeFails, gateway.ResultChallengeFailed, "3-D Secure challenge that fails whatever is typed (G001)"},
	{"4000 0000 0000 9995", pay.BrandVISA, ScenarioDecline, gateway.ResultInsufficientFunds, "insufficient funds (G012)"},
	{"4000 0000 0000 9979", pay.BrandVISA, ScenarioDecline, gateway.ResultCardRestricted, "stolen card (G042)"},
	{"4000 0000 0000 0069", pay.BrandVISA, ScenarioDecline, gateway.ResultExpiredCard, "expired card (G054)"},
	{"4000 0000 0000 0127", pay.BrandVISA, ScenarioDecline, gateway.ResultSecurityCodeWrong, "wrong security code (G044)"},
	{"5105 1051 0510 5100", pay.BrandMASTER, ScenarioDecline, gateway.ResultOverLimit, "over the limit (G055)"},
	{"4000 0000 0000 0119", pay.BrandVISA, ScenarioDecline, gateway.ResultProcessorError, "processor error (G097)"},
	{"4000 0000 0000 0259", pay.BrandVISA, ScenarioTimeout, gateway.ResultApproved, "timeout after the authorisation succeeded: the PSP authorises, then does not answer before the client's timeout; Lookup finds it authorised; authorising again with the same payment id returns it and charges once"},
	{"3782 822463 10005", pay.BrandAMEX, ScenarioRefused, gateway.ResultBrandNotAccepted, "refused before anything is sent (G031)"},
	{"3622 720627 1667", pay.BrandDINERS, ScenarioRefused, gateway.ResultBrandNotAccepted, "refused (G031)"},
}

// DeclineAmounts decline an authorisation of an amount by its last three digits (yen), on
// any card that was saved: a card that verified may still be refused a payment, and the
// journey must show it (README "Test cards"). ¥103,051 (an invoice of ¥100,050 with the
// 3 % fee) is declined for insufficient funds.
var DeclineAmounts = map[int64]gateway.ResultCode{
	51: gateway.ResultInsufficientFunds,
	55: gateway.ResultOverLimit,
}

// Digits is the card number without spaces.
func (c TestCard) Digits() string { return strings.ReplaceAll(c.Number, " ", "") }

// testCardFor finds the table row of a number (digits only).
func testCardFor(digits string) (TestCard, bool) {
	for _, c := range TestCards {
		if c.Digits() == digits {
			return c, true
		}
	}
	return TestCard{}, false
}

// b32 is lower-case base32 without padding: letters and the digits 2–7, so an id or a
// fingerprint never holds a long run of digits that the card-number scan would flag.
var b32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// fingerprint identifies a card number at this PSP without keeping it: HMAC-SHA256 of
// the digits with the sandbox secret.
func fingerprint(secret, digits string) string {
	m := hmac.New(sha256.New, []byte("sandbox card fingerprint\x00"+secret))
	m.Write([]byte(digits))
	return "fp_" + b32.EncodeToString(m.Sum(nil))[:32]
}

// cardInput is a card as a person typed it, before checking.
type cardInput struct {
	Number, ExpMonth, ExpYear, CVC, Name string
}

// fieldError is one refused field, with its result code and the Japanese message shown
// next to the field.
type fieldError struct {
	Code    gateway.ResultCode `json:"code"`
	Field   string             `json:"field"` // number, exp, cvc or name
	Message string             `json:"message"`
}

// checkedCard is a card that may become a token. It lives for one request: the number
// is reduced to last4 and a fingerprint before anything is written.
type checkedCard struct {
	digits   string
	brand    pay.CardBrand
	expMonth int
	expYear  int
	holder   string
	scenario Scenario
	code     gateway.ResultCode
}

const (
	msgNumberEmpty   = "カード番号を入力してください。"
	msgNumberFormat  = "カード番号は13〜19桁の数字で入力してください。"
	msgNumberLuhn    = "カード番号が正しくありません。カードに記載の番号をご確認ください。"
	msgExpEmpty      = "有効期限を入力してください。"
	msgExpFormat     = "有効期限は月（01〜12）と西暦の年を、MM/YY の形で入力してください（例: 04/28）。"
	msgExpPast       = "有効期限が切れています。カードに記載の有効期限をご確認ください。"
	msgCVCEmpty      = "セキュリティコードを入力してください。"
	msgCVCFormat     = "セキュリティコードはカード裏面に記載の3桁の数字で入力してください。"
	msgNameEmpty     = "カード名義を入力してください。"
	msgNameFormat    = "カード名義はカードに記載のとおり半角の英字で入力してください（例: TARO YAMADA）。"
	maxHolderLength  = 45
	maxExpYearsAhead = 20
)

// check validates a card as the tokenisation endpoint and the hosted page take it. The
// errors come in the order of the form's fields: number, exp, cvc, name.
func check(in cardInput, now time.Time) (checkedCard, []fieldError) {
	var errs []fieldError
	var c checkedCard
	num := pay.NormalizeCode(in.Number)
	switch {
	case num == "":
		errs = append(errs, fieldError{gateway.ResultCardNumberInvalid, "number", msgNumberEmpty})
	case !pay.AllDigits(num) || len(num) < 13 || len(num) > 19:
		errs = append(errs, fieldError{gateway.ResultCardNumberInvalid, "number", msgNumberFormat})
	case !pay.Luhn(num):
		errs = append(errs, fieldError{gateway.ResultCardNumberInvalid, "number", msgNumberLuhn})
	default:
		c.digits = num
		c.brand = pay.BrandFromNumber(num)
		if !c.brand.Accepted() {
			errs = append(errs, fieldError{gateway.ResultBrandNotAccepted, "number", c.brand.RefusalMessage()})
		}
	}

	month, year, expErr := checkExpiry(in.ExpMonth, in.ExpYear, now)
	if expErr != "" {
		errs = append(errs, fieldError{gateway.ResultExpiredCard, "exp", expErr})
	}
	c.expMonth, c.expYear = month, year

	cvc := pay.NormalizeCode(in.CVC)
	switch {
	case cvc == "":
		errs = append(errs, fieldError{gateway.ResultSecurityCodeWrong, "cvc", msgCVCEmpty})
	case !pay.AllDigits(cvc) || len(cvc) != 3:
		errs = append(errs, fieldError{gateway.ResultSecurityCodeWrong, "cvc", msgCVCFormat})
	}

	// There is no result code for a holder name; G030 stands for "the card details as
	// typed are wrong", and the message names the field.
	name := strings.Join(strings.Fields(strings.ToUpper(toHalfWidth(in.Name))), " ")
	switch {
	case name == "":
		errs = append(errs, fieldError{gateway.ResultCardNumberInvalid, "name", msgNameEmpty})
	case len(name) > maxHolderLength || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ .'-") != "" || !strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
		errs = append(errs, fieldError{gateway.ResultCardNumberInvalid, "name", msgNameFormat})
	}
	c.holder = name

	if len(errs) > 0 {
		return checkedCard{}, errs
	}
	c.scenario, c.code = ScenarioApproved, gateway.ResultApproved
	if tc, ok := testCardFor(c.digits); ok {
		c.scenario, c.code = tc.Scenario, tc.Code
	}
	return c, nil
}

// checkExpiry reads a month and a 2- or 4-digit year; a card is valid to the end of its
// month in Japan's time.
func checkExpiry(m, y string, now time.Time) (month, year int, msg string) {
	m, y = pay.NormalizeCode(m), pay.NormalizeCode(y)
	if m == "" && y == "" {
		return 0, 0, msgExpEmpty
	}
	month, err1 := strconv.Atoi(m)
	year, err2 := strconv.Atoi(y)
	if err1 != nil || err2 != nil || !pay.AllDigits(m) || !pay.AllDigits(y) || month < 1 || month > 12 || (len(y) != 2 && len(y) != 4) {
		return 0, 0, msgExpFormat
	}
	if len(y) == 2 {
		year += 2000
	}
	jst := now.In(pay.Tokyo())
	if year > jst.Year()+maxExpYearsAhead {
		return 0, 0, msgExpFormat
	}
	if expired(month, year, now) {
		return 0, 0, msgExpPast
	}
	return month, year, ""
}

// expired says whether a card valid through month/year has expired at now.
func expired(month, year int, now time.Time) bool {
	jst := now.In(pay.Tokyo())
	return year < jst.Year() || (year == jst.Year() && month < int(jst.Month()))
}

// splitExpiry reads the hosted page's one expiry field, "MM/YY" as printed on cards
// ("04/28", "4 / 2028", "0428").
func splitExpiry(s string) (month, year string) {
	s = pay.NormalizeCode(s)
	if m, y, ok := strings.Cut(s, "/"); ok {
		return m, y
	}
	if len(s) == 4 || len(s) == 6 {
		return s[:2], s[2:]
	}
	return s, ""
}

// toHalfWidth turns full-width ASCII (ＴＡＲＯ　ＹＡＭＡＤＡ) into half-width, as people type
// names with a Japanese input method on.
func toHalfWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '　':
			r = ' '
		case r >= '！' && r <= '～':
			r -= '！' - '!'
		}
		b.WriteRune(r)
	}
	return b.String()
}
