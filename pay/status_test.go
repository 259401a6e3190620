package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestExaminationStatus(t *testing.T) {
	tests := []struct {
		status pay.ExaminationStatus
		code   int
		valid  bool
		label  string
	}{
		{pay.InProgress, 1, true, "審査中"},
		{pay.InProgressExaminationChecked, 2, true, "審査確認済"},
		{pay.InProgressExaminationCompleted, 3, true, "審査完了"},
		{pay.TransferCompleted, 4, true, "振込完了"},
		{pay.Cancel, 5, true, "キャンセル"},
		{pay.BuyerNotRegistered, 6, true, "購入者未登録"},
		{pay.WaitingForPayment, 7, true, "支払待ち"},
		{pay.Expired, 8, true, "期限切れ"},
		{pay.ExaminationStatus(0), 0, false, "不明"},
		{pay.ExaminationStatus(9), 9, false, "不明"},
		{pay.ExaminationStatus(-1), -1, false, "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.status), "stored number must not change")
			assert.Equal(t, tt.valid, tt.status.Valid())
			assert.Equal(t, tt.label, tt.status.Label())
		})
	}
}

func TestInvoiceType(t *testing.T) {
	tests := []struct {
		typ   pay.InvoiceType
		code  int
		valid bool
		label string
	}{
		{pay.InvoicePayment, 1, true, "請求書カード払い"},
		{pay.InvoiceRequestBuyer, 2, true, "カード払い依頼（受取）"},
		{pay.InvoiceRequestSeller, 3, true, "カード払い依頼（送付）"},
		{pay.InvoiceType(0), 0, false, "不明"},
		{pay.InvoiceType(4), 4, false, "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.typ))
			assert.Equal(t, tt.valid, tt.typ.Valid())
			assert.Equal(t, tt.label, tt.typ.Label())
		})
	}
}

func TestCollectionStatus(t *testing.T) {
	tests := []struct {
		status pay.CollectionStatus
		code   int
		valid  bool
		label  string
	}{
		{pay.CollectionNotRegistered, 1, true, "購入者未登録"},
		{pay.CollectionWaitingPayment, 2, true, "支払待ち"},
		{pay.CollectionInProgress, 3, true, "審査中"},
		{pay.CollectionReviewCompleted, 4, true, "審査完了"},
		{pay.CollectionDepositCompleted, 5, true, "入金完了"},
		{pay.CollectionExpired, 6, true, "期限切れ"},
		{pay.CollectionCancel, 7, true, "キャンセル"},
		{pay.CollectionStatus(0), 0, false, "不明"},
		{pay.CollectionStatus(8), 8, false, "不明"},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.status))
			assert.Equal(t, tt.valid, tt.status.Valid())
			assert.Equal(t, tt.label, tt.status.Label())
		})
	}
}

func TestSupplierStatus(t *testing.T) {
	tests := []struct {
		status pay.SupplierStatus
		code   int
		valid  bool
		label  string
		group  pay.SupplierGroup
	}{
		{pay.SupplierApproved, 1, true, "承認済", pay.SupplierEnable},
		{pay.SupplierEscalation, 2, true, "確認中", pay.SupplierEnable},
		{pay.SupplierUnapproved, 3, true, "未承認", pay.SupplierEnable},
		{pay.SupplierRejected, 4, true, "否認", pay.SupplierDisable},
		{pay.SupplierStatus(0), 0, false, "不明", ""},
		{pay.SupplierStatus(5), 5, false, "不明", ""},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			assert.Equal(t, tt.code, int(tt.status))
			assert.Equal(t, tt.valid, tt.status.Valid())
			assert.Equal(t, tt.label, tt.status.Label())
			assert.Equal(t, tt.group, tt.status.Group())
			if tt.group != "" {
				assert.Contains(t, pay.SupplierStatusesIn(tt.group), tt.status,
					"Group and SupplierStatusesIn must agree")
			}
		})
	}
}

func TestSupplierStatusesIn(t *testing.T) {
	tests := []struct {
		group pay.SupplierGroup
		want  []pay.SupplierStatus
	}{
		{pay.SupplierEnable, []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierUnapproved}},
		{pay.SupplierDisable, []pay.SupplierStatus{pay.SupplierRejected}},
		{"", nil},
		{"all", nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.group), func(t *testing.T) {
			assert.Equal(t, tt.want, pay.SupplierStatusesIn(tt.group))
		})
	}
}

func TestParseSupplierGroup(t *testing.T) {
	tests := []struct {
		in     string
		want   pay.SupplierGroup
		wantOK bool
	}{
		{"enable", pay.SupplierEnable, true},
		{"disable", pay.SupplierDisable, true},
		{"", "", false},
		{"Enable", "", false},
		{" enable", "", false},
		{"enabled", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := pay.ParseSupplierGroup(tt.in)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseSupplierStatuses(t *testing.T) {
	enabled := []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierUnapproved}
	for _, tt := range []struct {
		in   []string
		want []pay.SupplierStatus
		bad  string
	}{
		{nil, enabled, ""},
		{[]string{""}, enabled, ""},
		{[]string{" , "}, enabled, ""},
		{[]string{"enable"}, enabled, ""},
		{[]string{"disable"}, []pay.SupplierStatus{pay.SupplierRejected}, ""},
		{[]string{"Approved", "Escalation"}, []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation}, ""},
		{[]string{"Rejected,Approved"}, []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierRejected}, ""},
		{[]string{"Unapproved, Unapproved", "3"}, []pay.SupplierStatus{pay.SupplierUnapproved}, ""},
		{[]string{"4", "enable"}, []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierUnapproved, pay.SupplierRejected}, ""},
		{[]string{"Approved", "Deleted"}, nil, "Deleted"},
		{[]string{"approved"}, nil, "approved"},
		{[]string{"5"}, nil, "5"},
		{[]string{"0"}, nil, "0"},
		{[]string{"enabled"}, nil, "enabled"},
	} {
		got, bad, ok := pay.ParseSupplierStatuses(tt.in)
		assert.Equal(t, tt.bad == "", ok, "%q", tt.in)
		assert.Equal(t, tt.bad, bad, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}
