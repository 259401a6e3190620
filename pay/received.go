package pay

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// ReceivedState is where a received invoice stands (issue 29): one of the four lists
// of the 受取請求書 area.
type ReceivedState string

const (
	// ReceivedNew: arrived, not yet paid, being paid or set aside (新着).
	ReceivedNew ReceivedState = "new"
	// ReceivedScheduled: a payment made from it is being screened or waits for its
	// transfer (支払予定).
	ReceivedScheduled ReceivedState = "scheduled"
	// ReceivedPaid: its payment was transferred here, or the buyer marked it paid
	// elsewhere (支払済).
	ReceivedPaid ReceivedState = "paid"
	// ReceivedSetAside: the buyer marked it not to be paid (a duplicate, a wrong
	// address, an invoice disputed) (支払不要).
	ReceivedSetAside ReceivedState = "set_aside"
)

// ReceivedStates are the lists in the order the tabs show them.
var ReceivedStates = []ReceivedState{ReceivedNew, ReceivedScheduled, ReceivedPaid, ReceivedSetAside}

var receivedStateLabels = map[ReceivedState]string{
	ReceivedNew:       "新着",
	ReceivedScheduled: "支払予定",
	ReceivedPaid:      "支払済",
	ReceivedSetAside:  "支払不要",
}

// Label is the state as the tabs and the invoice's page name it.
func (s ReceivedState) Label() string { return labelOf(receivedStateLabels, s) }

// Valid reports whether s is one of the four states.
func (s ReceivedState) Valid() bool { _, ok := receivedStateLabels[s]; return ok }

// Disposition is what the buyer marked on a received invoice: nothing, paid elsewhere
// (by bank transfer from its own account, in cash) or not to be paid.
type Disposition string

const (
	DispositionOpen          Disposition = "open"
	DispositionPaidElsewhere Disposition = "paid_elsewhere"
	DispositionNotToPay      Disposition = "not_to_pay"
)

var dispositionLabels = map[Disposition]string{
	DispositionOpen:          "未処理",
	DispositionPaidElsewhere: "他の方法で支払済",
	DispositionNotToPay:      "支払不要",
}

// Label is the disposition as the invoice's history names it.
func (d Disposition) Label() string { return labelOf(dispositionLabels, d) }

// Valid reports whether d is one of the three dispositions.
func (d Disposition) Valid() bool { _, ok := dispositionLabels[d]; return ok }

// ReceivedStateOf places a received invoice in its list. payments are the examination
// statuses of the payments submitted from its file (none, usually one). One transferred
// makes it 支払済 and one in screening or waiting for its transfer 支払予定, whatever was
// marked and whatever came after (a transferred payment and a later one cancelled: it was
// paid, and must not be offered for paying again); cancelled and expired ones count for
// nothing, so it is paid again or set aside. The store's lists run the same rule in SQL
// (received_invoice_views); a test holds the two together.
func ReceivedStateOf(d Disposition, payments []ExaminationStatus) ReceivedState {
	if slices.Contains(payments, TransferCompleted) {
		return ReceivedPaid
	}
	if slices.ContainsFunc(payments, func(s ExaminationStatus) bool {
		return s == InProgress || s == InProgressExaminationChecked || s == InProgressExaminationCompleted
	}) {
		return ReceivedScheduled
	}
	switch d {
	case DispositionPaidElsewhere:
		return ReceivedPaid
	case DispositionNotToPay:
		return ReceivedSetAside
	}
	return ReceivedNew
}

// MaxReceivedAmount bounds an amount typed for a received invoice: a record of what a
// supplier billed, not a payment (whose own limits are pay.DefaultLimits), so only a
// sanity bound (a trillion yen less one).
const MaxReceivedAmount = 999_999_999_999

// MaxDispositionReason is how long a disposition's reason may be, in characters.
const MaxDispositionReason = 200

// CheckDisposition checks what a buyer marks on a received invoice: any disposition
// (open undoes a mark) unless a payment made here is being screened or was transferred
// (byPayment: its state is the payment's, and the money moves here), and for not to be
// paid a reason (the record must say why an invoice was not paid). It answers the
// reason trimmed, or the field errors to show.
func CheckDisposition(d Disposition, reason string, byPayment bool) (string, FieldErrors) {
	var errs FieldErrors
	reason = strings.TrimSpace(reason)
	switch {
	case !d.Valid():
		errs.Add("disposition", "処理を選んでください。")
	case byPayment:
		errs.Add("disposition", "この請求書はカード払いで支払中または支払済のため、変更できません。")
	case d == DispositionNotToPay && reason == "":
		errs.Add("reason", "支払不要とする理由を入力してください。")
	}
	if utf8.RuneCountInString(reason) > MaxDispositionReason {
		errs.Add("reason", "理由は200文字以内で入力してください。")
	}
	if len(errs) > 0 {
		return "", errs
	}
	return reason, nil
}

// RetainUntil is the day until which a received invoice must be kept under
// 電子帳簿保存法 (電子取引データの保存): seven years from the day after the filing
// deadline of the fiscal year it was received in. The buyer's fiscal year is not known
// here, so the date is the latest any fiscal year could make it: the year ends at most
// twelve months after receipt, the return is due two months later (three with the
// extension corporations may take), and seven years run from there — to the end of the
// month eight years and three months on.
func RetainUntil(received time.Time) time.Time {
	d := received.In(Tokyo())
	firstOfMonth := time.Date(d.Year()+8, d.Month()+3, 1, 0, 0, 0, 0, Tokyo())
	return firstOfMonth.AddDate(0, 1, -1)
}

// SupplierUploadLinkDays is how long a supplier's upload link works, in days: a
// month's invoices and the next month's (the link's page and the FAQ say so).
const SupplierUploadLinkDays = 60
