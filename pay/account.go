package pay

import (
	"errors"
	"strings"
	"time"
)

// AccountType is a bank account's deposit type in our API and database
// (SPEC §3: 2 ordinary, 1 current, 0 default). These are not the zengin
// codes; see ZenginCode.
type AccountType int

const (
	AccountDefault  AccountType = 0
	AccountCurrent  AccountType = 1
	AccountOrdinary AccountType = 2
)

var accountTypeLabels = map[AccountType]string{
	AccountDefault:  "未選択",
	AccountCurrent:  "当座",
	AccountOrdinary: "普通",
}

// Valid reports whether t may be stored on an account: the default 0 only
// means the user has not chosen yet.
func (t AccountType) Valid() bool { return t == AccountCurrent || t == AccountOrdinary }

// Label is the type as shown on forms and account lists.
func (t AccountType) Label() string { return labelOf(accountTypeLabels, t) }

// Banks' own deposit-type codes, used in zengin 総合振込 files. They are the
// reverse of ours for 普通 and 当座, so mixing them up would send money to
// the wrong kind of account.
const (
	zenginOrdinary = 1
	zenginCurrent  = 2
)

// ZenginCode converts t to the banks' code for the transfer file (DESIGN §4:
// convert at the file boundary only). It returns 0 for a type that is not
// Valid, which no bank accepts, so the caller must check Valid first.
func (t AccountType) ZenginCode() int {
	switch t {
	case AccountOrdinary:
		return zenginOrdinary
	case AccountCurrent:
		return zenginCurrent
	}
	return 0
}

// HolderCheckKind selects how POST /api/v1/accounts/holder_kana checks a
// deposit-account holder's name (SPEC §3).
type HolderCheckKind int

const (
	HolderCheckNormal   HolderCheckKind = 2
	HolderCheckPersonal HolderCheckKind = 4
)

const accountNumberDigits = 7

// Messages for NormalizeAccountNumber, exported so handlers can tell the
// two apart with errors.Is.
var (
	ErrAccountNumberRequired = errors.New("口座番号を入力してください")
	ErrAccountNumberFormat   = errors.New("口座番号は7桁の数字で入力してください")
)

// NormalizeAccountNumber checks an account number (口座番号) as typed and
// answers the seven ASCII digits the zengin file carries. Full-width digits,
// spaces and hyphens (1234-567, １２３４５６７) are accepted, as people copy
// numbers from passbooks and PDFs. Nothing is padded: a shorter number may
// be a typo, and a bank's own zero-padding is for the person to copy.
func NormalizeAccountNumber(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", ErrAccountNumberRequired
	}
	d := NormalizeCode(s)
	if len(d) != accountNumberDigits || !AllDigits(d) {
		return "", ErrAccountNumberFormat
	}
	return d, nil
}

// NewAccountPeriod is how long an account counts as new for screening: a payment to an
// account no one paid more than this long ago deserves a closer look, since a changed
// account is how invoice fraud takes the money.
const NewAccountPeriod = 30 * 24 * time.Hour

// AccountIsNew says whether an account is new at now, given when another payment to it
// was first made (nil: never).
func AccountIsNew(firstPaidAt *time.Time, now time.Time) bool {
	return firstPaidAt == nil || now.Sub(*firstPaidAt) < NewAccountPeriod
}
