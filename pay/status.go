package pay

import "strings"

// unknownLabel is shown for a code this package does not define, so a bad
// row never renders as an empty cell.
const unknownLabel = "不明"

// ExaminationStatus is an invoice's examination status (SPEC §3). The numbers
// are stored in the database and sent by the API, so their order is fixed.
type ExaminationStatus int

const (
	InProgress ExaminationStatus = iota + 1
	InProgressExaminationChecked
	InProgressExaminationCompleted
	TransferCompleted
	Cancel
	BuyerNotRegistered
	WaitingForPayment
	Expired
)

var examinationStatusLabels = map[ExaminationStatus]string{
	InProgress:                     "審査中",
	InProgressExaminationChecked:   "審査確認済",
	InProgressExaminationCompleted: "審査完了",
	TransferCompleted:              "振込完了",
	Cancel:                         "キャンセル",
	BuyerNotRegistered:             "購入者未登録",
	WaitingForPayment:              "支払待ち",
	Expired:                        "期限切れ",
}

// Valid reports whether s is one of the eight defined statuses.
func (s ExaminationStatus) Valid() bool { return s >= InProgress && s <= Expired }

// Label is the status as shown to the buyer.
func (s ExaminationStatus) Label() string { return labelOf(examinationStatusLabels, s) }

// InvoiceType tells who started an invoice: the buyer paying a supplier's
// invoice, or a card-payment request seen from the buyer's or seller's side.
type InvoiceType int

const (
	InvoicePayment InvoiceType = iota + 1
	InvoiceRequestBuyer
	InvoiceRequestSeller
)

var invoiceTypeLabels = map[InvoiceType]string{
	InvoicePayment:       "請求書カード払い",
	InvoiceRequestBuyer:  "カード払い依頼（受取）",
	InvoiceRequestSeller: "カード払い依頼（送付）",
}

// Valid reports whether t is one of the three defined types.
func (t InvoiceType) Valid() bool { return t >= InvoicePayment && t <= InvoiceRequestSeller }

// Label is the type as shown to the buyer.
func (t InvoiceType) Label() string { return labelOf(invoiceTypeLabels, t) }

// CollectionStatus is the status of a card-payment request the user sent
// (SPEC §3). It has its own numbering, separate from ExaminationStatus.
type CollectionStatus int

const (
	CollectionNotRegistered CollectionStatus = iota + 1
	CollectionWaitingPayment
	CollectionInProgress
	CollectionReviewCompleted
	CollectionDepositCompleted
	CollectionExpired
	CollectionCancel
)

var collectionStatusLabels = map[CollectionStatus]string{
	CollectionNotRegistered:    "購入者未登録",
	CollectionWaitingPayment:   "支払待ち",
	CollectionInProgress:       "審査中",
	CollectionReviewCompleted:  "審査完了",
	CollectionDepositCompleted: "入金完了",
	CollectionExpired:          "期限切れ",
	CollectionCancel:           "キャンセル",
}

// Valid reports whether s is one of the seven defined statuses.
func (s CollectionStatus) Valid() bool {
	return s >= CollectionNotRegistered && s <= CollectionCancel
}

// Label is the status as shown to the requester.
func (s CollectionStatus) Label() string { return labelOf(collectionStatusLabels, s) }

// SupplierStatus is the operators' verdict on a registered supplier.
type SupplierStatus int

const (
	SupplierApproved SupplierStatus = iota + 1
	SupplierEscalation
	SupplierUnapproved
	SupplierRejected
)

var supplierStatusLabels = map[SupplierStatus]string{
	SupplierApproved:   "承認済",
	SupplierEscalation: "確認中",
	SupplierUnapproved: "未承認",
	SupplierRejected:   "否認",
}

// Valid reports whether s is one of the four defined statuses.
func (s SupplierStatus) Valid() bool { return s >= SupplierApproved && s <= SupplierRejected }

// Label is the status as shown to the buyer.
func (s SupplierStatus) Label() string { return labelOf(supplierStatusLabels, s) }

// SupplierGroup is the value of the supplier list's status query
// (/suppliers?status=enable).
type SupplierGroup string

const (
	SupplierEnable  SupplierGroup = "enable"
	SupplierDisable SupplierGroup = "disable"
)

// Group is the list a supplier appears in: only a rejected supplier is
// disabled, because approval may still be pending for the others.
// An undefined status belongs to no group.
func (s SupplierStatus) Group() SupplierGroup {
	switch s {
	case SupplierApproved, SupplierEscalation, SupplierUnapproved:
		return SupplierEnable
	case SupplierRejected:
		return SupplierDisable
	}
	return ""
}

// SupplierStatusesIn lists the statuses of group g, for the store's filter.
// It returns nil for an unknown group.
func SupplierStatusesIn(g SupplierGroup) []SupplierStatus {
	switch g {
	case SupplierEnable:
		return []SupplierStatus{SupplierApproved, SupplierEscalation, SupplierUnapproved}
	case SupplierDisable:
		return []SupplierStatus{SupplierRejected}
	}
	return nil
}

// ParseSupplierGroup reads the status query value; anything else is refused
// so a typo never silently lists every supplier.
func ParseSupplierGroup(s string) (SupplierGroup, bool) {
	switch g := SupplierGroup(s); g {
	case SupplierEnable, SupplierDisable:
		return g, true
	}
	return "", false
}

// supplierStatusNames are the supplier statuses by their names in SPEC.md §3 and their
// codes in the API's answers (Supplier.status), as the status list of GET suppliers
// takes them.
var supplierStatusNames = map[string]SupplierStatus{
	"Approved": SupplierApproved, "Escalation": SupplierEscalation, "Unapproved": SupplierUnapproved, "Rejected": SupplierRejected,
	"1": SupplierApproved, "2": SupplierEscalation, "3": SupplierUnapproved, "4": SupplierRejected,
}

// ParseSupplierStatuses reads a status list (SPEC.md §7 GET suppliers): the values of a
// repeated query parameter, each one or more comma-separated items, an item a group
// (enable, disable: its statuses), a status's name (Approved, Escalation, Unapproved,
// Rejected) or its code (1–4). The answer is in code order without repeats; no item at
// all is the enabled group. The first item that is none of these is bad, and refuses the
// whole list, so a typo never silently lists other suppliers than asked for.
func ParseSupplierStatuses(values []string) (statuses []SupplierStatus, bad string, ok bool) {
	seen := map[SupplierStatus]bool{}
	items := 0
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			items++
			if g, ok := ParseSupplierGroup(item); ok {
				for _, st := range SupplierStatusesIn(g) {
					seen[st] = true
				}
				continue
			}
			st, ok := supplierStatusNames[item]
			if !ok {
				return nil, item, false
			}
			seen[st] = true
		}
	}
	if items == 0 {
		return SupplierStatusesIn(SupplierEnable), "", true
	}
	for st := SupplierApproved; st <= SupplierRejected; st++ {
		if seen[st] {
			statuses = append(statuses, st)
		}
	}
	return statuses, "", true
}

func labelOf[K comparable](labels map[K]string, k K) string {
	if l, ok := labels[k]; ok {
		return l
	}
	return unknownLabel
}
