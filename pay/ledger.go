package pay

import "fmt"

// The ledger (DESIGN.md §4): every movement of money posts balanced double-entry lines to
// an append-only journal, in the transaction of the state change that causes it. Amounts
// are integer yen; a line's amount is positive for a debit and negative for a credit, so
// a posting balances when its lines sum to zero. The rules of what each movement posts
// live here; the store writes them (store/ledger.go).

// LedgerAccount is an account of the service's chart.
type LedgerAccount string

const (
	// AccountCardReceivable (asset): what the card companies owe the service for captured
	// charges, less what was refunded to the cards.
	AccountCardReceivable LedgerAccount = "card_receivable"
	// AccountSupplierPayable (liability): what the service owes payees for captured
	// payments that are not in a transfer file.
	AccountSupplierPayable LedgerAccount = "supplier_payable"
	// AccountTransfersInTransit (liability): payees' money in a transfer file the bank
	// has not yet answered for.
	AccountTransfersInTransit LedgerAccount = "transfers_in_transit"
	// AccountBank (asset): the service's bank account the transfers are paid from.
	AccountBank LedgerAccount = "bank"
	// AccountFeeRevenue (revenue): service fees at the full rate.
	AccountFeeRevenue LedgerAccount = "fee_revenue"
	// AccountPromotionExpense (expense): the part of the fee a promotion code took off.
	AccountPromotionExpense LedgerAccount = "promotion_expense"
)

// LedgerAccounts is the chart in the order the trial balance lists it.
var LedgerAccounts = []LedgerAccount{AccountCardReceivable, AccountBank, AccountSupplierPayable,
	AccountTransfersInTransit, AccountFeeRevenue, AccountPromotionExpense}

var ledgerAccountLabels = map[LedgerAccount]string{
	AccountCardReceivable:     "カード売掛金",
	AccountSupplierPayable:    "取引先未払金",
	AccountTransfersInTransit: "振込未決済",
	AccountBank:               "普通預金（振込口座）",
	AccountFeeRevenue:         "手数料収入",
	AccountPromotionExpense:   "販売促進費（手数料割引）",
}

// Label is the account's name in the console.
func (a LedgerAccount) Label() string { return labelOf(ledgerAccountLabels, a) }

// DebitNormal says whether the account's balance is normally a debit (assets and
// expenses); the trial balance shows each balance on its side.
func (a LedgerAccount) DebitNormal() bool {
	return a == AccountCardReceivable || a == AccountBank || a == AccountPromotionExpense
}

// PostingKind is what moved the money.
type PostingKind string

const (
	PostOpening        PostingKind = "opening"         // a payment's balances when the journal began
	PostCapture        PostingKind = "capture"         // the card was charged
	PostCollectionFee  PostingKind = "collection_fee"  // a request's fee its requester bears, kept from the transfer
	PostRefund         PostingKind = "refund"          // the charge was given back to the card
	PostTransferFiled  PostingKind = "transfer_filed"  // the payee's money went into a transfer file
	PostTransferDone   PostingKind = "transfer_done"   // the bank paid the payee
	PostTransferFailed PostingKind = "transfer_failed" // the bank could not: the money is owed again
)

var postingKindLabels = map[PostingKind]string{
	PostOpening:        "期首残高",
	PostCapture:        "売上確定",
	PostCollectionFee:  "依頼者負担の手数料",
	PostRefund:         "返金",
	PostTransferFiled:  "振込ファイル作成",
	PostTransferDone:   "振込完了",
	PostTransferFailed: "振込不能",
}

// Label is the kind as the console shows it.
func (k PostingKind) Label() string { return labelOf(postingKindLabels, k) }

// LedgerLine is one line of a posting: a debit (Amount > 0) or a credit (Amount < 0).
type LedgerLine struct {
	Account LedgerAccount
	Amount  int64
}

// Posting is one balanced movement.
type Posting struct {
	Kind  PostingKind
	Lines []LedgerLine
}

// Balanced says whether the lines sum to zero and none is zero.
func (p Posting) Balanced() bool {
	var sum int64
	for _, l := range p.Lines {
		if l.Amount == 0 {
			return false
		}
		sum += l.Amount
	}
	return sum == 0 && len(p.Lines) >= 2
}

// PaymentMoney is what a payment's postings are made of.
type PaymentMoney struct {
	// Amount is the invoice amount; Fee what the card is charged on top of it.
	Amount, Fee int64
	// PayeeFee is a request's fee its requester bears: kept from the transfer.
	PayeeFee int64
	// FullFee is the fee at the service's full rate (before a promotion's discount);
	// never less than Fee + PayeeFee.
	FullFee int64
}

// Charged is what the card is charged: the invoice and the customer's fee.
func (m PaymentMoney) Charged() int64 { return m.Amount + m.Fee }

// Payable is what the payee receives.
func (m PaymentMoney) Payable() int64 { return m.Amount - m.PayeeFee }

// Discount is what a promotion took off the fee.
func (m PaymentMoney) Discount() int64 { return max(0, m.FullFee-m.Fee-m.PayeeFee) }

func (m PaymentMoney) check() error {
	if m.Amount <= 0 || m.Fee < 0 || m.PayeeFee < 0 || m.PayeeFee >= m.Amount {
		return fmt.Errorf("pay: payment money out of range: %+v", m)
	}
	return nil
}

func lines(ls ...LedgerLine) []LedgerLine {
	out := ls[:0:0]
	for _, l := range ls {
		if l.Amount != 0 {
			out = append(out, l)
		}
	}
	return out
}

// CapturePostings are what a capture posts: the card's charge against what is owed to
// the payee and the fee (at its full rate, less a promotion's discount), and, when the
// requester of a card-payment request bears the fee, that fee kept from the payee.
func CapturePostings(m PaymentMoney) ([]Posting, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	out := []Posting{{Kind: PostCapture, Lines: lines(
		LedgerLine{AccountCardReceivable, m.Charged()},
		LedgerLine{AccountSupplierPayable, -m.Amount},
		LedgerLine{AccountFeeRevenue, -(m.Fee + m.Discount())},
		LedgerLine{AccountPromotionExpense, m.Discount()},
	)}}
	if m.PayeeFee > 0 {
		out = append(out, Posting{Kind: PostCollectionFee, Lines: lines(
			LedgerLine{AccountSupplierPayable, m.PayeeFee},
			LedgerLine{AccountFeeRevenue, -m.PayeeFee},
		)})
	}
	return out, nil
}

// RefundPosting gives a captured charge back to the card: every line of the capture
// (and of the requester's fee) reversed in one posting. The payee's money must be owed,
// not in a transfer file: the state machine sees to it.
func RefundPosting(m PaymentMoney) (Posting, error) {
	if err := m.check(); err != nil {
		return Posting{}, err
	}
	return Posting{Kind: PostRefund, Lines: lines(
		LedgerLine{AccountCardReceivable, -m.Charged()},
		LedgerLine{AccountSupplierPayable, m.Payable()},
		LedgerLine{AccountFeeRevenue, m.Fee + m.PayeeFee + m.Discount()},
		LedgerLine{AccountPromotionExpense, -m.Discount()},
	)}, nil
}

// TransferPosting is what a transfer stage change posts for a payee's amount, or false
// when the change moves no money (the file given to the bank, a retry).
func TransferPosting(a PaymentAction, payable int64) (Posting, bool) {
	switch a {
	case ActFile:
		return Posting{Kind: PostTransferFiled, Lines: lines(
			LedgerLine{AccountSupplierPayable, payable}, LedgerLine{AccountTransfersInTransit, -payable})}, true
	case ActTransfer:
		return Posting{Kind: PostTransferDone, Lines: lines(
			LedgerLine{AccountTransfersInTransit, payable}, LedgerLine{AccountBank, -payable})}, true
	case ActTransferFail:
		return Posting{Kind: PostTransferFailed, Lines: lines(
			LedgerLine{AccountTransfersInTransit, payable}, LedgerLine{AccountSupplierPayable, -payable})}, true
	}
	return Posting{}, false
}

// ExpectedBalances are a payment's ledger balances as its state says they must be: the
// model the invariant checks compare the journal with. captured says whether the card
// holds a capture (captured, or refunded after one: refunded is the same as none).
func ExpectedBalances(m PaymentMoney, card CardStatus, t TransferStage) map[LedgerAccount]int64 {
	b := map[LedgerAccount]int64{}
	if card != CardCaptured {
		return b // never charged, or charged and refunded: nothing is left
	}
	b[AccountCardReceivable] = m.Charged()
	b[AccountFeeRevenue] = -(m.Fee + m.PayeeFee + m.Discount())
	b[AccountPromotionExpense] = m.Discount()
	switch t {
	case TransferFiled, TransferSent:
		b[AccountTransfersInTransit] = -m.Payable()
	case TransferDone:
		b[AccountBank] = -m.Payable()
	default:
		b[AccountSupplierPayable] = -m.Payable()
	}
	for k, v := range b {
		if v == 0 {
			delete(b, k)
		}
	}
	return b
}
