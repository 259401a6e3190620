package ops

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

const auditPageSize = 50

var auditObjects = []struct{ Key, Label string }{
	{store.AuditPayment, "お支払い"},
	{store.AuditSupplier, "取引先"},
	{store.AuditOperator, "担当者"},
	{store.AuditProposal, "担当者の提案"},
	{store.AuditSignIn, "ログイン"},
	{store.AuditBuyer, "購入者"},
	{store.AuditPartner, "連携アプリ"},
	{store.AuditInquiry, "お問い合わせ"},
}

var auditActions = map[string]string{
	"review":  "取引先の確認",
	"sign_in": "ログイン",
	"create":  "担当者の登録",
	// A held buyer approved or rejected (/ops/buyers).
	"review_buyer": "アカウントの確認",
	// The card checks' lock lifted (/ops/locks).
	"unlock_card_checks": "カード追加の停止の解除",
	// The operators' proposals and what their approval does (store/operator_proposals.go).
	"propose_invite": "招待の提案",
	"propose_grant":  "権限追加の提案",
	"propose_revoke": "権限削除の提案",
	"propose_enable": "再開の提案",
	"approve":        "提案の承認",
	"reject":         "提案の却下",
	"enrol":          "招待からの登録",
	"grant":          "権限の追加",
	"revoke":         "権限の削除",
	"enable":         "再開",
	"disable":        "停止",
	// A partner application registered (/ops/partners).
	"register": "連携アプリの登録",
	// An inquiry answered or closed (/ops/inquiries).
	"answer_inquiry": "お問い合わせへの回答",
	"close_inquiry":  "お問い合わせの対応終了",
}

// ShowAuditPage lists the operators' actions, newest first, by operator and object.
func (h *Handler) ShowAuditPage(c *echo.Context) error {
	ctx := c.Request().Context()
	f := store.AuditFilter{Limit: auditPageSize}
	v := pages.AuditView{ObjectType: c.QueryParam("object"), ObjectID: strings.TrimSpace(c.QueryParam("object_id")),
		OperatorID: c.QueryParam("operator")}
	var errs pay.FieldErrors
	for _, o := range auditObjects {
		v.ObjectOpts = append(v.ObjectOpts, views.FieldOption{Value: o.Key, Label: o.Label})
		if o.Key == v.ObjectType {
			f.ObjectType = o.Key
		}
	}
	if f.ObjectType == "" {
		v.ObjectType = ""
	}
	if v.ObjectID != "" {
		n, err := strconv.ParseInt(v.ObjectID, 10, 64)
		if err != nil || n <= 0 {
			errs.Add("object_id", "対象の番号は半角数字で入力してください")
		} else {
			f.ObjectID = n
		}
	}
	if n, err := strconv.ParseInt(v.OperatorID, 10, 64); err == nil {
		f.OperatorID = n
	} else {
		v.OperatorID = ""
	}
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 0)
	f.Offset = page * auditPageSize
	ops, err := h.Store.Operators(ctx)
	if err != nil {
		return err
	}
	for _, o := range ops {
		v.OperatorOpts = append(v.OperatorOpts, views.FieldOption{Value: strconv.FormatInt(o.ID, 10), Label: o.Name})
	}
	list, total, err := h.Store.AuditLog(ctx, f)
	if err != nil {
		return err
	}
	v.Total = total
	for _, a := range list {
		r := pages.AuditRow{At: dateTime(a.CreatedAt), Operator: a.OperatorName, Action: auditAction(a.Action),
			Before: stateText(a.Before), After: stateText(a.After), Reason: a.Reason}
		switch a.ObjectType {
		case store.AuditPayment:
			r.Object, r.ObjectHref = pay.InvoiceNumber(a.ObjectID), fmt.Sprintf("%s/%d", QueuePage.Path, a.ObjectID)
		case store.AuditSupplier:
			r.Object, r.ObjectHref = fmt.Sprintf("取引先 #%d", a.ObjectID), fmt.Sprintf("%s/%d", SuppliersPage.Path, a.ObjectID)
		case store.AuditProposal:
			r.Object = fmt.Sprintf("提案 #%d", a.ObjectID)
		case store.AuditBuyer:
			r.Object = fmt.Sprintf("購入者 #%d", a.ObjectID)
		case store.AuditInquiry:
			r.Object, r.ObjectHref = pay.InquiryNumber(a.ObjectID), inquiryHref(a.ObjectID)
		default:
			r.Object = fmt.Sprintf("担当者 #%d", a.ObjectID)
		}
		v.Rows = append(v.Rows, r)
	}
	v.PrevHref, v.NextHref = pageLinks(AuditPage.Path,
		map[string]string{"object": v.ObjectType, "object_id": v.ObjectID, "operator": v.OperatorID}, page, f.Offset, auditPageSize, total)
	return show(h, c, AuditPage.Title, errs, v, pages.AuditPage)
}

func auditAction(a string) string {
	if l, ok := auditActions[a]; ok {
		return l
	}
	return pay.PaymentAction(a).Label()
}

// stateText shows an audit row's JSON state in words: its labels when it has them.
func stateText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	var parts []string
	if l, ok := m["status_label"].(string); ok {
		parts = append(parts, l)
	}
	if ar, ok := m["action_required"].(bool); ok && ar {
		parts = append(parts, "要対応")
	}
	if ip, ok := m["ip"].(string); ok {
		parts = append(parts, "IP "+ip)
	}
	if len(parts) == 0 {
		return string(raw)
	}
	return strings.Join(parts, "・")
}
