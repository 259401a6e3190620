package pay_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestParseRoles(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"screening", []string{"screening"}, false},
		{" screening , transfers,admin ", []string{"screening", "transfers", "admin"}, false},
		{"screening,screening", []string{"screening"}, false},
		{"", nil, true},
		{" , ", nil, true},
		{"screening,root", nil, true},
	} {
		got, err := pay.ParseRoles(c.in)
		if c.bad {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	assert.Equal(t, "審査", pay.RoleLabel(pay.RoleScreening))
	assert.Equal(t, "不明", pay.RoleLabel("root"))
}

func TestSendBackText(t *testing.T) {
	for _, c := range []struct {
		reason     pay.SendBackReason
		message    string
		want       string
		errorField string
	}{
		{pay.SendBackAmount, "", "請求金額が請求書と一致しません", ""},
		{pay.SendBackAccount, " 口座番号が違います ", "振込先口座が請求書と一致しません：口座番号が違います", ""},
		{pay.SendBackOther, "宛名の部署名をご確認ください", "宛名の部署名をご確認ください", ""},
		{pay.SendBackOther, "", "", "message"},
		{"", "x", "", "reason"},
		{"amount2", "", "", "reason"},
		{pay.SendBackPayee, strings.Repeat("あ", pay.MaxOperatorMessage+1), "", "message"},
	} {
		got, errs := pay.SendBackText(c.reason, c.message)
		if c.errorField != "" {
			assert.NotEmpty(t, errs.For(c.errorField), "%s %q", c.reason, c.message)
			continue
		}
		assert.Empty(t, errs)
		assert.Equal(t, c.want, got)
	}
	for _, r := range pay.SendBackReasons {
		assert.True(t, r.Valid())
		assert.NotEqual(t, "不明", r.Label())
	}
}

func TestCancelText(t *testing.T) {
	got, errs := pay.CancelText("  重複した申請  ")
	assert.Empty(t, errs)
	assert.Equal(t, "重複した申請", got)
	_, errs = pay.CancelText(" ")
	assert.NotEmpty(t, errs.For("reason"))
	_, errs = pay.CancelText(strings.Repeat("x", pay.MaxOperatorMessage+1))
	assert.NotEmpty(t, errs.For("reason"))
}

func TestPaymentLink(t *testing.T) {
	for _, c := range []struct {
		st   pay.PaymentState
		want string
	}{
		{pay.PaymentState{Status: pay.InProgress}, "/payments/review/7"},
		{pay.PaymentState{Status: pay.InProgressExaminationChecked}, "/payments/review/7"},
		{pay.PaymentState{Status: pay.InProgressExaminationCompleted, ActionRequired: true}, "/payments/review/7"},
		{pay.PaymentState{Status: pay.InProgressExaminationCompleted}, "/payments/reserved/7"},
		{pay.PaymentState{Status: pay.TransferCompleted}, "/payments/history/7"},
		{pay.PaymentState{Status: pay.Cancel}, "/payments/history/7"},
		{pay.PaymentState{Status: pay.Expired}, "/payments/history/7"},
	} {
		assert.Equal(t, c.want, pay.PaymentLink(7, c.st), "%+v", c.st)
	}
}

func TestNotices(t *testing.T) {
	for _, a := range []pay.PaymentAction{pay.ActSubmit, pay.ActCheck, pay.ActComplete, pay.ActTransfer, pay.ActSendBack,
		pay.ActResubmit, pay.ActCancel, pay.ActExpire, pay.ActReturn} {
		title, body := pay.PaymentNotice(a, "株式会社取引先", 100000, "理由")
		assert.NotEqual(t, "お支払いの状況が変わりました", title, a)
		assert.Contains(t, body, "株式会社取引先宛のお支払い（¥100,000）", a)
	}
	_, body := pay.PaymentNotice(pay.ActSendBack, "A", 1000, "請求金額が請求書と一致しません")
	assert.Contains(t, body, "請求金額が請求書と一致しません")
	_, body = pay.PaymentNotice(pay.ActReturn, "A", 1000, "口座が解約されていたため")
	assert.Contains(t, body, "理由：口座が解約されていたため", "a return says why the transfer was given up")
	for _, st := range []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierRejected} {
		title, body := pay.SupplierNotice("株式会社取引先", st, "理由あり")
		assert.NotEqual(t, "取引先の状況が変わりました", title)
		assert.Contains(t, body, "株式会社取引先")
	}
	_, body = pay.SupplierNotice("A", pay.SupplierRejected, "登録番号が確認できません")
	assert.Contains(t, body, "理由：登録番号が確認できません")
}
