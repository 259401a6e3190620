// Package ops is the operator console (/ops): operators sign in with their own session
// and an authenticator code, screen payments, review suppliers and read the audit log.
// Its pages read every buyer's data through the store's operator-only methods; nothing
// here is reachable with a buyer's session (the site skips web.LoadUser on /ops, and the operator's
// cookie is scoped to /ops).
package ops

import (
	"fmt"
	"time"

	"cardpay/handlers/web"
	"cardpay/pay"
)

// Handler serves the console.
type Handler struct {
	*web.App
}

// The console's pages.
var (
	SignInPage    = web.Page{Path: "/ops/signin", Title: "運用コンソールへのログイン", Access: web.Public}
	QueuePage     = web.Page{Path: "/ops/screening", Title: "審査", Access: web.Operator}
	SuppliersPage = web.Page{Path: "/ops/suppliers", Title: "取引先の確認", Access: web.Operator}
	AuditPage     = web.Page{Path: "/ops/audit", Title: "監査ログ", Access: web.Operator}
	BuyersPage    = web.Page{Path: "/ops/buyers", Title: "アカウントの確認", Access: web.Operator}
)

// jst is Japan time, in which the console shows every time.
var jst = time.FixedZone("JST", 9*60*60)

func dateTime(t time.Time) string { return t.In(jst).Format("2006/01/02 15:04") }

// waited says how long a payment has waited, as an operator reads it at a glance.
func waited(since, now time.Time) string {
	d := now.Sub(since)
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d分", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d時間", int(d.Hours()))
	}
	return fmt.Sprintf("%d日", int(d.Hours()/24))
}

// actorName is a payment event's actor as the console shows it.
func actorName(actor string, names map[string]string) string {
	switch {
	case actor == "system":
		return "システム"
	case names[actor] != "":
		return "担当者 " + names[actor]
	case len(actor) > 9 && actor[:9] == "operator:":
		return "担当者 #" + actor[9:]
	}
	return "購入者"
}

func supplierStatusOptions() []pay.SupplierStatus {
	return []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierUnapproved, pay.SupplierRejected}
}
