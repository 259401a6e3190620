package pay

import (
	"errors"
	"fmt"
)

// A payment's life (DESIGN.md §4): submitted as 審査中 (InProgress) once the card is
// authorised; an operator checks it (確認済), completes the screening (審査完了, the card is
// captured) and transfers the money (振込完了). Before it enters a transfer file it can be
// cancelled (voided, or refunded once captured) or expire; screening can send it back to
// the buyer (action required) on any of the three screening states, and the buyer's
// correction puts it back to 審査中. Once it is in a transfer file the bank is paying it:
// only the bank's result moves it (done, failed), and a failed transfer is retried or
// returned to the card (組戻し) by the operators. Every change goes through NextPayment, so
// the store only ever writes a transition this table allows.

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
	// ActFile: the payment was put into a 総合振込 file (the transfer stage filed).
	ActFile PaymentAction = "transfer_file"
	// ActSend: the file holding it was given to the bank (sent).
	ActSend PaymentAction = "transfer_send"
	// ActTransferFail: the bank could not pay the supplier (failed); the money is ours
	// again, owed to the supplier.
	ActTransferFail PaymentAction = "transfer_fail"
	// ActRetry: a failed transfer goes back to wait for a later day's file.
	ActRetry PaymentAction = "transfer_retry"
	// ActReturn: a failed transfer is given up and the card refunded (組戻し): the payment
	// ends as キャンセル with the transfer stage returned.
	ActReturn PaymentAction = "transfer_return"
	// The card's own moves, recorded as the PSP answered them (pay.NextCard): the capture,
	// the void of an authorisation, the refund of a capture.
	ActCardCaptured PaymentAction = "card_captured"
	ActCardVoided   PaymentAction = "card_voided"
	ActCardRefunded PaymentAction = "card_refunded"
)

// CardAction is the event of the card's move to st (captured, voided, refunded), or ""
// for a move that is the submission's own (authorised, declined: the submit event).
func CardAction(st CardStatus) PaymentAction {
	switch st {
	case CardCaptured:
		return ActCardCaptured
	case CardVoided:
		return ActCardVoided
	case CardRefunded:
		return ActCardRefunded
	}
	return ""
}

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
	// The transfer's own steps, as the operators' timeline shows them.
	ActFile:         "振込ファイル作成",
	ActSend:         "振込ファイル送信",
	ActTransferFail: "振込不能",
	ActRetry:        "再振込の手配",
	ActReturn:       "振込不能による返金",
	ActCardCaptured: "カード売上確定",
	ActCardVoided:   "カード与信の取消",
	ActCardRefunded: "カードへの返金",
}

// Label is the action as the payment's timeline shows it.
func (a PaymentAction) Label() string { return labelOf(paymentActionLabels, a) }

// ForBuyer says whether the buyer hears of the action (a notification, a line on the
// payment's timeline): the transfer file's steps are the operators' work, and only their
// outcome (振込完了, a refund) is the buyer's news.
func (a PaymentAction) ForBuyer() bool {
	switch a {
	case ActFile, ActSend, ActTransferFail, ActRetry, ActCardCaptured, ActCardVoided, ActCardRefunded:
		return false
	}
	return true
}

// TransferStage is where a payment's bank transfer stands. It is part of the payment's
// state: once filed, no buyer or screening action may change the payment.
type TransferStage string

const (
	TransferNone     TransferStage = ""         // not in a transfer file
	TransferFiled    TransferStage = "filed"    // in a file not yet given to the bank
	TransferSent     TransferStage = "sent"     // in a file the bank has
	TransferDone     TransferStage = "done"     // the bank paid the supplier
	TransferFailed   TransferStage = "failed"   // the bank could not pay; retry or return
	TransferReturned TransferStage = "returned" // given up: the card is refunded
)

var transferStageLabels = map[TransferStage]string{
	TransferNone:     "振込前",
	TransferFiled:    "振込ファイル作成済み",
	TransferSent:     "銀行へ送信済み",
	TransferDone:     "振込完了",
	TransferFailed:   "振込不能",
	TransferReturned: "返金（組戻し）",
}

// Label is the stage as the console shows it.
func (t TransferStage) Label() string { return labelOf(transferStageLabels, t) }

// InBank says whether the bank has or had the transfer in hand: the payment can no longer
// be cancelled, sent back, corrected or expired.
func (t TransferStage) InBank() bool { return t != TransferNone }

// PaymentState is where a payment stands: its examination status, whether the buyer must
// act (a send-back), its transfer stage and its card status. The store's conditional
// updates compare all of it with what they read.
type PaymentState struct {
	Status         ExaminationStatus
	ActionRequired bool
	Transfer       TransferStage
	Card           CardStatus
	// EverFiled: the payment was put in a transfer file once. A failed transfer that the
	// operators retry is back to TransferNone, waiting for a later file, but it stays in
	// their hands: nobody else may cancel, send back or expire it.
	EverFiled bool
}

// inOperatorsHands says whether the transfer has begun: the payment is in a file, the
// bank has or paid it, or a failed transfer waits to be filed again.
func (s PaymentState) inOperatorsHands() bool { return s.Transfer.InBank() || s.EverFiled }

// ErrTransition is a change the payment's state does not allow (cancelling a transferred
// payment, completing one that was sent back); callers show it as "no longer possible".
var ErrTransition = errors.New("pay: the payment's state does not allow this")

// screening reports whether s is one of the three states before the transfer.
func screening(s ExaminationStatus) bool {
	return s == InProgress || s == InProgressExaminationChecked || s == InProgressExaminationCompleted
}

// NextPayment is the state after action a on a payment in state from, or ErrTransition.
// ActSubmit and ActRequest start a payment: from is ignored. The card status is carried
// over (the card moves by NextCard); the transfer stage moves only by the transfer's own
// actions, and every buyer or screening action needs it to be TransferNone.
func NextPayment(from PaymentState, a PaymentAction) (PaymentState, error) {
	fail := func() (PaymentState, error) {
		return from, fmt.Errorf("%w: %s on %s (transfer %q, card %q)", ErrTransition, a, from.Status.Label(), from.Transfer, from.Card)
	}
	to := from
	to.ActionRequired = false
	open := !from.inOperatorsHands()
	switch a {
	case ActSubmit:
		return PaymentState{Status: InProgress, Card: from.Card}, nil
	case ActRequest:
		return PaymentState{Status: BuyerNotRegistered, Card: from.Card}, nil
	case ActCheck:
		if from.Status == InProgress && !from.ActionRequired && open {
			to.Status = InProgressExaminationChecked
			return to, nil
		}
	case ActComplete:
		if from.Status == InProgressExaminationChecked && !from.ActionRequired && open {
			to.Status = InProgressExaminationCompleted
			return to, nil
		}
	case ActSendBack:
		if screening(from.Status) && !from.ActionRequired && open {
			to.ActionRequired = true
			return to, nil
		}
	case ActResubmit:
		if screening(from.Status) && from.ActionRequired && open {
			to.Status = InProgress
			return to, nil
		}
	case ActCancel:
		if (screening(from.Status) || RequestOpen(from.Status)) && open {
			to.Status = Cancel
			return to, nil
		}
	case ActExpire:
		if (screening(from.Status) || RequestOpen(from.Status)) && open {
			to.Status = Expired
			return to, nil
		}
	case ActLink:
		if from.Status == BuyerNotRegistered {
			to.Status = WaitingForPayment
			return to, nil
		}
	case ActFile:
		// Only money already taken from the card goes to the bank.
		if from.Status == InProgressExaminationCompleted && !from.ActionRequired && from.Transfer == TransferNone && from.Card == CardCaptured {
			to.Transfer, to.EverFiled = TransferFiled, true
			return to, nil
		}
	case ActSend:
		if from.Status == InProgressExaminationCompleted && from.Transfer == TransferFiled {
			to.Transfer = TransferSent
			return to, nil
		}
	case ActTransfer:
		if from.Status == InProgressExaminationCompleted && from.Transfer == TransferSent {
			to.Status, to.Transfer = TransferCompleted, TransferDone
			return to, nil
		}
	case ActTransferFail:
		if from.Status == InProgressExaminationCompleted && from.Transfer == TransferSent {
			to.Transfer = TransferFailed
			return to, nil
		}
	case ActRetry:
		if from.Status == InProgressExaminationCompleted && from.Transfer == TransferFailed {
			to.Transfer = TransferNone
			return to, nil
		}
	case ActReturn:
		// A failed transfer, also once a retry was arranged and before it is filed again.
		if from.Status == InProgressExaminationCompleted && (from.Transfer == TransferFailed || (from.Transfer == TransferNone && from.EverFiled)) {
			to.Status, to.Transfer = Cancel, TransferReturned
			return to, nil
		}
	}
	return fail()
}

// BuyerCanCancel says whether the buyer may still cancel: any time before the payment
// enters a transfer file, once paid. A request not paid yet is the requester's to cancel; its customer simply
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

// ErrCardTransition is a card status change the card's life does not allow: a capture
// answered after the payment was refunded, a void after a capture.
var ErrCardTransition = errors.New("pay: the card's status does not allow this")

// cardNext lists where each card status may go. A refund may follow the authorisation
// directly: the capture was made at the PSP and the process died before recording it;
// the refund then records both.
var cardNext = map[CardStatus][]CardStatus{
	CardNone:           {CardPending},
	CardPending:        {CardRequiresAction, CardAuthorized, CardDeclined},
	CardRequiresAction: {CardAuthorized, CardDeclined},
	CardDeclined:       {CardPending}, // a request's customer tries another card
	CardAuthorized:     {CardCaptured, CardVoided, CardRefunded},
	CardCaptured:       {CardRefunded},
}

// NextCard checks a change of the card status from → to; nil when it is allowed.
// Staying where it is is not a change (false): callers skip the write.
func NextCard(from, to CardStatus) (change bool, err error) {
	if from == to {
		return false, nil
	}
	for _, c := range cardNext[from] {
		if c == to {
			return true, nil
		}
	}
	return false, fmt.Errorf("%w: %s → %s", ErrCardTransition, from, to)
}
