package account

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"cardpay/pay"
	"cardpay/store"
)

// Refusals of a held buyer's review.
const (
	MsgBuyerReviewTarget = "承認または否認を選んでください"
	MsgBuyerReviewReason = "判断の理由を入力してください"
	MsgBuyerReviewMoved  = "このアカウントは、ほかの担当者がすでに確認しました。画面を読み込み直してください"
)

// ReviewBuyer is a screening operator's decision on a held buyer: approve (it becomes
// active) or reject, each with a reason. The conditional update, the audit row and the
// buyer's notification are one transaction; a buyer no longer held (another operator
// decided) is refused on "status".
func (s *Service) ReviewBuyer(ctx context.Context, op store.Operator, id int64, to pay.BuyerReview, reason string) error {
	if !op.Has(pay.RoleScreening) {
		return pay.FieldErrors{{Field: "status", Message: pay.MsgNotScreener}}
	}
	reason = strings.TrimSpace(reason)
	var errs pay.FieldErrors
	if to != pay.BuyerActive && to != pay.BuyerRejected {
		errs.Add("status", MsgBuyerReviewTarget)
	}
	if reason == "" {
		errs.Add("reason", MsgBuyerReviewReason)
	}
	errs.Add("reason", pay.OperatorReasonTooLong(reason))
	if len(errs) > 0 {
		return errs
	}
	cur, err := s.Store.BuyerForReview(ctx, id)
	if err != nil {
		return err
	}
	if cur.ReviewStatus != pay.BuyerHeld {
		return pay.FieldErrors{{Field: "status", Message: MsgBuyerReviewMoved}}
	}
	type state struct {
		Status pay.BuyerReview `json:"review_status"`
		Reason string          `json:"review_reason"`
	}
	now := s.now()
	err = s.Store.ReviewBuyer(ctx, id, to, reason, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditBuyer, ObjectID: id,
		Action: "review_buyer", Before: state{cur.ReviewStatus, cur.ReviewReason}, After: state{to, cur.ReviewReason}, Reason: reason}, now,
		func(tx *sqlx.Tx) error {
			title, body := "アカウントの確認が完了しました", "ご登録内容の確認が完了しました。お支払いやカード払い依頼をご利用いただけます。"
			if to == pay.BuyerRejected {
				title, body = "アカウントをご利用いただけません", "ご登録の法人について確認できなかったため、アカウントをご利用いただけません。理由："+reason
			}
			return s.Store.Notify(ctx, tx, id, store.NewNotification{EventKey: fmt.Sprintf("buyer-review-%d", id), Title: title, Body: body,
				Link: "/"}, s.NotificationMail(id), now)
		})
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "status", Message: MsgBuyerReviewMoved}}
	}
	return err
}
