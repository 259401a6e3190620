package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"
)

// One-time mail codes (sign-up confirmation, second factor by mail, password reset,
// e-mail change).
//
// Policy:
//   - a code is 6 decimal digits drawn uniformly from crypto/rand (10^6 possibilities);
//   - it expires CodeTTL (10 minutes) after it is issued;
//   - at most CodeMaxAttempts (5) wrong entries are accepted, so an online guesser
//     succeeds with probability 5/10^6 per code sent;
//   - it is single-use.
//
// Only an HMAC of the code is stored, keyed with a server secret: a bare hash of six
// digits is reversed offline in microseconds by trying all 10^6 values, so a leaked
// table would reveal every live code. With the key kept out of the database it would not.
const (
	CodeTTL         = 10 * time.Minute
	CodeMaxAttempts = 5
	codeDigits      = 6
)

var codeSpace = big.NewInt(1_000_000) // 10^codeDigits

// Codes issues and checks one-time codes with an HMAC key. Build it with NewCodes from
// the app's SECRET_KEY. Changing the key invalidates outstanding codes, which is harmless
// given their 10-minute life.
type Codes struct {
	Key []byte
}

// NewCodes derives the code HMAC key from the app's SECRET_KEY with HKDF, so the codes,
// the sealer and anything else keyed from SECRET_KEY never share a key.
func NewCodes(secretKey string) Codes {
	if secretKey == "" {
		return Codes{}
	}
	return Codes{Key: DeriveKey(secretKey, "cardpay codes")}
}

// New returns a fresh code to mail to the user and the hash to store in its place.
func (c Codes) New() (code, hash string, err error) {
	// rand.Int draws uniformly from [0, 10^6); formatting with %06d keeps leading zeros,
	// which a person types as printed.
	n, err := rand.Int(rand.Reader, codeSpace)
	if err != nil {
		return "", "", fmt.Errorf("auth: new code: %w", err)
	}
	code = fmt.Sprintf("%0*d", codeDigits, n.Int64())
	return code, c.hash(code), nil
}

// Match reports whether input, after normalisation (full-width digits, spaces and hyphens
// forgiven), is the code behind hash. The comparison is constant-time.
func (c Codes) Match(hash, input string) bool {
	code := normalizeInput(input)
	// Compute and compare even for malformed input so every wrong entry costs the same;
	// the format check is folded in afterwards.
	same := subtle.ConstantTimeCompare([]byte(c.hash(code)), []byte(hash)) == 1
	return same && isDigits(code, codeDigits)
}

func (c Codes) hash(code string) string {
	m := hmac.New(sha256.New, c.Key)
	m.Write([]byte(code))
	return hex.EncodeToString(m.Sum(nil))
}

// StoredCode is the row the store keeps for an issued code.
type StoredCode struct {
	Hash      string
	ExpiresAt time.Time
	Attempts  int        // wrong entries so far
	UsedAt    *time.Time // set once the code has been accepted
}

// CodeResult is the outcome of CheckCode.
type CodeResult int

const (
	CodeOK CodeResult = iota
	CodeWrong
	CodeExpired
	CodeUsed
	CodeTooManyAttempts
)

// Message is the text shown under the code field; empty for CodeOK.
func (r CodeResult) Message() string {
	switch r {
	case CodeWrong:
		return "確認コードが正しくありません。"
	case CodeExpired:
		return "確認コードの有効期限が切れています。もう一度コードを送信してください。"
	case CodeUsed:
		return "この確認コードは使用済みです。"
	case CodeTooManyAttempts:
		return "確認コードの入力回数が上限を超えました。もう一度コードを送信してください。"
	}
	return ""
}

// String names the result for logs.
func (r CodeResult) String() string {
	switch r {
	case CodeOK:
		return "ok"
	case CodeWrong:
		return "wrong"
	case CodeExpired:
		return "expired"
	case CodeUsed:
		return "used"
	case CodeTooManyAttempts:
		return "too many attempts"
	}
	return fmt.Sprintf("CodeResult(%d)", int(r))
}

// CheckCode decides what an entered code means. It changes nothing; the caller must
// persist the consequence so that it holds under parallel entries:
//   - count the entry before comparing, in the statement that checks the limit (an
//     UPDATE … WHERE attempts < CodeMaxAttempts), and pass the count from before it in
//     c.Attempts: a count written after a read lets parallel guesses past the limit;
//   - CodeOK: set UsedAt conditionally (WHERE used_at IS NULL), or the code could be
//     replayed.
//
// The other results change nothing. The checks run in this order: a used code reports
// CodeUsed, then an expired one CodeExpired (valid strictly before ExpiresAt), then a code
// with CodeMaxAttempts wrong entries CodeTooManyAttempts, and only then is the input
// compared, so a correct guess after the limit is still refused.
func CheckCode(c StoredCode, input string, now time.Time, codes Codes) CodeResult {
	switch {
	case c.UsedAt != nil:
		return CodeUsed
	case !now.Before(c.ExpiresAt):
		return CodeExpired
	case c.Attempts >= CodeMaxAttempts:
		return CodeTooManyAttempts
	case codes.Match(c.Hash, input):
		return CodeOK
	}
	return CodeWrong
}
