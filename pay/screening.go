package pay

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Operator roles (issue 13): what an operator of the console may do.
const (
	RoleScreening = "screening" // 審査: check, complete, send back, cancel; review suppliers
	RoleTransfers = "transfers" // 振込: transfer files and their outcomes
	RoleAdmin     = "admin"     // 管理者: proposes and approves operators and their roles; reads the audit log
)

var roleLabels = map[string]string{
	RoleScreening: "審査",
	RoleTransfers: "振込",
	RoleAdmin:     "管理者",
}

// RoleLabel is a role as the console shows it.
func RoleLabel(r string) string { return labelOf(roleLabels, r) }

// ParseRoles reads a comma-separated list of roles ("screening,transfers"), refusing an
// unknown one and an empty list; duplicates are dropped.
func ParseRoles(s string) ([]string, error) {
	var roles []string
	for _, r := range strings.Split(s, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if _, ok := roleLabels[r]; !ok {
			return nil, fmt.Errorf("pay: unknown role %q (screening, transfers or admin)", r)
		}
		if !slices.Contains(roles, r) {
			roles = append(roles, r)
		}
	}
	if len(roles) == 0 {
		return nil, fmt.Errorf("pay: no role given (screening, transfers or admin)")
	}
	return roles, nil
}

// SendBackReason is why screening sends a payment back to its buyer: a fixed list, so
// that the buyer is told plainly what to correct.
type SendBackReason string

const (
	SendBackAmount     SendBackReason = "amount"
	SendBackPayee      SendBackReason = "payee"
	SendBackAccount    SendBackReason = "account"
	SendBackAddressee  SendBackReason = "addressee"
	SendBackUnreadable SendBackReason = "unreadable"
	SendBackOther      SendBackReason = "other"
)

// SendBackReasons in the order the console offers them.
var SendBackReasons = []SendBackReason{SendBackAmount, SendBackPayee, SendBackAccount, SendBackAddressee, SendBackUnreadable, SendBackOther}

var sendBackLabels = map[SendBackReason]string{
	SendBackAmount:     "請求金額が請求書と一致しません",
	SendBackPayee:      "支払先（取引先）が請求書と一致しません",
	SendBackAccount:    "振込先口座が請求書と一致しません",
	SendBackAddressee:  "請求書の宛名がご登録の事業者と一致しません",
	SendBackUnreadable: "請求書のファイルが読み取れません",
	SendBackOther:      "その他",
}

// Label is the reason as the buyer reads it.
func (r SendBackReason) Label() string { return labelOf(sendBackLabels, r) }

// Valid says whether r is one of SendBackReasons.
func (r SendBackReason) Valid() bool { _, ok := sendBackLabels[r]; return ok }

// MsgNotScreener refuses a console decision (a payment's screening, a supplier's or a
// buyer's review) to an operator without the screening role.
const MsgNotScreener = "この操作には「審査」の権限が必要です"

// MaxOperatorMessage is the longest message an operator may add to a send-back or a
// cancellation, in characters.
const MaxOperatorMessage = 500

// OperatorReasonTooLong is the refusal of an operator's reason or message over
// MaxOperatorMessage characters, "" when it fits: every console decision (cancel, send
// back, review, failed transfer) shares the limit and its words.
func OperatorReasonTooLong(reason string) string {
	if utf8.RuneCountInString(reason) > MaxOperatorMessage {
		return fmt.Sprintf("理由は%d文字以内で入力してください", MaxOperatorMessage)
	}
	return ""
}

// SendBackText is what the buyer reads on the payment: the reason, then the operator's
// message when there is one. The message is required for SendBackOther.
func SendBackText(r SendBackReason, message string) (string, FieldErrors) {
	var errs FieldErrors
	message = strings.TrimSpace(message)
	switch {
	case !r.Valid():
		errs.Add("reason", "差し戻しの理由を選んでください")
	case r == SendBackOther && message == "":
		errs.Add("message", "「その他」を選んだときは、お客さまへのメッセージを入力してください")
	}
	if utf8.RuneCountInString(message) > MaxOperatorMessage {
		errs.Add("message", fmt.Sprintf("メッセージは%d文字以内で入力してください", MaxOperatorMessage))
	}
	if len(errs) > 0 {
		return "", errs
	}
	if r == SendBackOther {
		return message, nil
	}
	if message == "" {
		return r.Label(), nil
	}
	return r.Label() + "：" + message, nil
}

// CancelText checks an operator's reason for cancelling a payment: required, and short.
func CancelText(reason string) (string, FieldErrors) {
	var errs FieldErrors
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		errs.Add("reason", "キャンセルの理由を入力してください")
	default:
		errs.Add("reason", OperatorReasonTooLong(reason))
	}
	return reason, errs
}

// PaymentNotice is the buyer's notification of a payment's change: its title, its text
// (with the reason when the change has one) and whether it asks the buyer to act.
func PaymentNotice(a PaymentAction, supplier string, amount int64, reason string) (title, body string) {
	what := fmt.Sprintf("%s宛のお支払い（%s）", supplier, Yen(amount))
	switch a {
	case ActSubmit:
		return "お支払いを受け付けました", what + "の申請を受け付けました。審査が終わるまでお待ちください。"
	case ActCheck:
		return "お支払いの書類を確認しました", what + "の請求書を確認しました。引き続き審査を行います。"
	case ActComplete:
		return "お支払いの審査が完了しました", what + "の審査が完了し、カードのご利用が確定しました。振込予定日に取引先へお振り込みします。"
	case ActTransfer:
		return "取引先へのお振り込みが完了しました", what + "について、取引先へのお振り込みが完了しました。お支払いの画面から支払明細と領収書（適格請求書）をダウンロードできます。"
	case ActSendBack:
		return "お支払いの修正をお願いします", what + "について、次の点の修正をお願いします。\n" + reason + "\nお支払いの画面から修正して、再申請してください。"
	case ActResubmit:
		return "修正したお支払いを受け付けました", what + "の修正を受け付けました。あらためて審査を行います。"
	case ActCancel:
		if reason != "" {
			return "お支払いがキャンセルされました", what + "はキャンセルされました。カードのご利用は取り消されます。\n理由：" + reason
		}
		return "お支払いがキャンセルされました", what + "はキャンセルされました。カードのご利用は取り消されます。"
	case ActReturn:
		body = what + "は、取引先へのお振り込みができなかったため、キャンセルしました。カードのご利用は返金されます。"
		if reason != "" {
			body += "\n理由：" + reason
		}
		return "お支払いがキャンセルされました", body
	case ActExpire:
		return "お支払いが期限切れになりました", what + "は期限切れになりました。カードのご利用は取り消されます。お手数ですが、もう一度申請してください。"
	case ActLink:
		return "カード払いの依頼が届きました", supplier + "から" + Yen(amount) + "のカード払いの依頼が届いています。「支払待ち」の一覧からお支払いください。"
	}
	return "お支払いの状況が変わりました", what + "の状況が変わりました。"
}

// SupplierNotice is the buyer's notification of an operator's review of a supplier.
func SupplierNotice(supplier string, st SupplierStatus, reason string) (title, body string) {
	switch st {
	case SupplierApproved:
		return "取引先が承認されました", supplier + "の確認が終わり、承認されました。この取引先へのお支払いを審査します。"
	case SupplierEscalation:
		return "取引先を確認しています", supplier + "について、追加の確認を行っています。確認が終わるまで、この取引先へのお支払いの審査は完了しません。"
	case SupplierRejected:
		body = supplier + "は、当サービスでのお支払い先として承認できませんでした。"
		if reason != "" {
			body += "\n理由：" + reason
		}
		return "取引先が承認されませんでした", body
	}
	return "取引先の状況が変わりました", supplier + "の状況が変わりました。"
}

// SupplierLink is the buyer's page of supplier id.
func SupplierLink(id int64) string { return fmt.Sprintf("/suppliers/%d", id) }

// PaymentLink is the page of payment id in the list its state belongs to: 審査中 while
// screening or waiting for the buyer, 振込予定 once completed, 支払履歴 after that.
func PaymentLink(id int64, st PaymentState) string {
	list := "/payments/history/"
	switch {
	case RequestOpen(st.Status):
		list = "/payments/waiting/"
	case st.ActionRequired || st.Status == InProgress || st.Status == InProgressExaminationChecked:
		list = "/payments/review/"
	case st.Status == InProgressExaminationCompleted:
		list = "/payments/reserved/"
	}
	return fmt.Sprintf("%s%d", list, id)
}
