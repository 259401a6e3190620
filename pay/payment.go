package pay

import (
	"errors"
	"fmt"
)

// A payment's life (DESIGN.md §4): submitted as 審査中 (InProgress) once the card is
// authorised; an operator checks it (確認済), completes the screening (審査完了, the card is
// captured) and transfers the money (振込完了). Before the transfer it can be cancelled
// (voided, or refunded once captured) or expire; screening can send it back to the buyer
// (action required) on any of the three screening states, and the buyer's correction
// puts it back to 審査中. Every change goes through NextPayment, so the store only ever
// writes a transition this table allows.

// PaymentAction is something that happens to a payment.
type PaymentAction string

const (
	// ActSubmit: the buyer submitted and the card was authorised (no state before it).
	ActSubmit PaymentAction = "submit"
	// ActCheck: an operator checked the documents.
	ActCheck PaymentAction = "check"
	// ActComplete: screening completed (a second operator); the card is captured.
	ActComplete PaymentAction = "complete"
	// ActTransfer: the supplier was paid by bank transfer.
	ActTransfer PaymentAction = "transfer"
	// ActSendBack: screening asks the buyer to correct something.
	ActSendBack PaymentAction = "send_back"
	// ActResubmit: the buyer corrected a payment that was sent back.
	ActResubmit PaymentAction = "resubmit"
	// ActCancel: the buyer or an operator cancelled before the transfer.
	ActCancel PaymentAction = "cancel"
	// ActExpire: the payment lapsed before the transfer (for example the authorisation).
	ActExpire PaymentAction = "expire"
	// ActRequest: a requester sent a card-payment request (no state before it): waiting
	// for the customer to register, or for their card when the customer is known.
	ActRequest PaymentAction = "request"
	// ActLink: the customer opened the request's key signed in; it waits for their card.
	ActLink PaymentAction = "link"
)

var paymentActionLabels = map[PaymentAction]string{
	ActSubmit:   "支払申請",
	ActCheck:    "書類確認",
	ActComplete: "審査完了",
	ActTransfer: "振込完了",
	ActSendBack: "差し戻し",
	ActResubmit: "修正して再申請",
	ActCancel:   "キャンセル",
	ActExpire:   "期限切れ",
	ActRequest:  "カード払い依頼",
	ActLink:     "依頼の受け取り",
}

// Label is the action as the payment's timeline shows it.
func (a PaymentAction) Label() string { return labelOf(paymentActionLabels, a) }

// PaymentState is where a payment stands: its examination status and whether the buyer
// must act (a send-back).
type PaymentState struct {
	Status         ExaminationStatus
	ActionRequired bool
}

// ErrTransition is a change the payment's state does not allow (cancelling a transferred
// payment, completing one that was sent back); callers show it as "no longer possible".
var ErrTransition = errors.New("pay: the payment's state does not allow this")

// screening reports whether s is one of the three states before the transfer.
func screening(s ExaminationStatus) bool {
	return s == InProgress || s == InProgressExaminationChecked || s == InProgressExaminationCompleted
}

// NextPayment is the state after action a on a payment in state from, or ErrTransition.
// ActSubmit starts a payment: from is ignored.
func NextPayment(from PaymentState, a PaymentAction) (PaymentState, error) {
	fail := func() (PaymentState, error) {
		return from, fmt.Errorf("%w: %s on %s", ErrTransition, a, from.Status.Label())
	}
	switch a {
	case ActSubmit:
		return PaymentState{Status: InProgress}, nil
	case ActCheck:
		if from.Status == InProgress && !from.ActionRequired {
			return PaymentState{Status: InProgressExaminationChecked}, nil
		}
	case ActComplete:
		if from.Status == InProgressExaminationChecked && !from.ActionRequired {
			return PaymentState{Status: InProgressExaminationCompleted}, nil
		}
	case ActTransfer:
		if from.Status == InProgressExaminationCompleted && !from.ActionRequired {
			return PaymentState{Status: TransferCompleted}, nil
		}
	case ActSendBack:
		if screening(from.Status) && !from.ActionRequired {
			return PaymentState{Status: from.Status, ActionRequired: true}, nil
		}
	case ActResubmit:
		if screening(from.Status) && from.ActionRequired {
			return PaymentState{Status: InProgress}, nil
		}
	case ActCancel:
		if screening(from.Status) || RequestOpen(from.Status) {
			return PaymentState{Status: Cancel}, nil
		}
	case ActExpire:
		if screening(from.Status) || RequestOpen(from.Status) {
			return PaymentState{Status: Expired}, nil
		}
	case ActRequest:
		return PaymentState{Status: BuyerNotRegistered}, nil
	case ActLink:
		if from.Status == BuyerNotRegistered {
			return PaymentState{Status: WaitingForPayment}, nil
		}
	}
	return fail()
}

// BuyerCanCancel says whether the buyer may still cancel: any time before the transfer,
// once paid. A request not paid yet is the requester's to cancel; its customer simply
// does not pay it.
func BuyerCanCancel(s PaymentState) bool {
	if RequestOpen(s.Status) {
		return false
	}
	_, err := NextPayment(s, ActCancel)
	return err == nil
}

// BuyerCanResubmit says whether the buyer is asked to correct and resubmit.
func BuyerCanResubmit(s PaymentState) bool {
	_, err := NextPayment(s, ActResubmit)
	return err == nil
}

// CardStatus is where a payment's money stands at the card company. It is kept beside the
// examination status because the two move separately: the card is authorised before the
// payment exists for screening, and a cancelled payment is voided or refunded.
type CardStatus string

const (
	// CardNone: a card-payment request waiting for the customer's card.
	CardNone CardStatus = "none"
	// CardPending: the authorisation was asked for and not answered yet. A payment in this
	// state is not shown to anyone; the reconciler resolves it by looking it up at the PSP.
	CardPending CardStatus = "pending"
	// CardRequiresAction: the PSP asked for a 3-D Secure challenge.
	CardRequiresAction CardStatus = "requires_action"
	CardAuthorized     CardStatus = "authorized"
	// CardDeclined: the authorisation failed; the payment never existed for the buyer.
	CardDeclined CardStatus = "declined"
	CardCaptured CardStatus = "captured"
	CardVoided   CardStatus = "voided"
	CardRefunded CardStatus = "refunded"
)

// Submitted says whether a payment with this card status exists for the buyer and the
// operators: its card was authorised (or later moved on from there).
func (c CardStatus) Submitted() bool {
	switch c {
	case CardAuthorized, CardCaptured, CardVoided, CardRefunded:
		return true
	}
	return false
}
