package pay

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"cardpay/calendar"
)

// Card-payment requests (collections): a corporation (the requester) asks its customer to
// pay its invoice by card. The requester's side is an invoice of type InvoiceRequestSeller;
// once the customer is known, the customer's side is an invoice of type
// InvoiceRequestBuyer that goes through screening and transfer like any payment, paid to
// the requester's receiving account. The requester's status follows the customer's
// payment (CollectionStatusOf).

// CollectionStatusOf is the requester's status (SPEC §3, 1–7) of a request whose
// invoice is in examination status s. A request whose customer has not registered
// (or has not opened the request's key yet) is 1; once the customer's payment exists it
// follows that payment.
func CollectionStatusOf(s ExaminationStatus) CollectionStatus {
	switch s {
	case BuyerNotRegistered:
		return CollectionNotRegistered
	case WaitingForPayment:
		return CollectionWaitingPayment
	case InProgress, InProgressExaminationChecked:
		return CollectionInProgress
	case InProgressExaminationCompleted:
		return CollectionReviewCompleted
	case TransferCompleted:
		return CollectionDepositCompleted
	case Expired:
		return CollectionExpired
	case Cancel:
		return CollectionCancel
	}
	return 0
}

// ExaminationStatusesOf lists the examination statuses of the requester's invoices in
// collection bucket b, for SQL filters.
func ExaminationStatusesOf(b CollectionBucket) []ExaminationStatus {
	var out []ExaminationStatus
	for s := InProgress; s <= Expired; s++ {
		if cb, ok := CollectionBucketOf(CollectionStatusOf(s)); ok && cb == b {
			out = append(out, s)
		}
	}
	return out
}

// RequestOpen says whether a request in examination status s can still be paid or
// cancelled by the requester: nothing has been charged yet.
func RequestOpen(s ExaminationStatus) bool {
	return s == BuyerNotRegistered || s == WaitingForPayment
}

// FeeBearer says who bears a request's fee (DESIGN.md §4: the customer by default).
type FeeBearer string

const (
	FeeByCustomer  FeeBearer = "customer"
	FeeByRequester FeeBearer = "requester"
)

// Valid reports whether b is one of the two.
func (b FeeBearer) Valid() bool { return b == FeeByCustomer || b == FeeByRequester }

// Label is who pays the fee, as the requester reads it.
func (b FeeBearer) Label() string {
	switch b {
	case FeeByCustomer:
		return "支払者（お客さま）が負担"
	case FeeByRequester:
		return "依頼者（自社）が負担"
	}
	return unknownLabel
}

// RequestCharges splits a request's fee: what the customer's card is charged on top of
// the amount, and what is taken from the transfer to the requester.
func RequestCharges(fee int64, b FeeBearer) (customerFee, payeeFee int64) {
	if b == FeeByRequester {
		return 0, fee
	}
	return fee, 0
}

// RequestInput is a card-payment request as the requester typed it (the journey's invoice
// step, a draft, the API). Dates are "2006-01-02" strings so that a draft keeps what was
// typed.
type RequestInput struct {
	CustomerName            string `json:"customer_name"`
	CustomerContactName     string `json:"customer_contact_name"`
	CustomerEmail           string `json:"customer_email"`
	CustomerCorporateNumber string `json:"customer_corporate_number"`
	Amount                  string `json:"amount"`
	InvoiceNumber           string `json:"invoice_number"`
	InvoiceDate             string `json:"invoice_date"`
	Deadline                string `json:"deadline"`
	Message                 string `json:"message"`
}

// CheckedRequest is a RequestInput that validated.
type CheckedRequest struct {
	CustomerName            string
	CustomerContactName     string
	CustomerEmail           string
	CustomerCorporateNumber string
	Amount                  int64
	InvoiceNumber           string
	InvoiceDate             *time.Time
	Deadline                time.Time
	Message                 string
}

// Limits of the request form.
const (
	MaxRequestMessageLen = 500
	// MaxRequestDays is how far ahead a payment deadline may be: a request's key lives
	// until its deadline, so a key is never valid for more than this.
	MaxRequestDays = 180
)

// Normalise tidies what was typed without changing its meaning.
func (in *RequestInput) Normalise() {
	in.CustomerName = NormalizeSpaces(in.CustomerName)
	in.CustomerContactName = NormalizeSpaces(in.CustomerContactName)
	if e, msg := ValidateEmail(in.CustomerEmail); msg == "" {
		in.CustomerEmail = e
	} else {
		in.CustomerEmail = strings.TrimSpace(in.CustomerEmail)
	}
	in.CustomerCorporateNumber = NormalizeCode(in.CustomerCorporateNumber)
	in.Amount = strings.TrimSpace(in.Amount)
	if n, ok := ParseYen(in.Amount); ok {
		in.Amount = strconv.FormatInt(n, 10)
	}
	in.InvoiceNumber = NormalizeSpaces(in.InvoiceNumber)
	in.Message = strings.TrimSpace(in.Message)
	for _, d := range []*string{&in.InvoiceDate, &in.Deadline} {
		if t, ok := ParseDate(*d); ok {
			*d = ISODate(t)
		} else {
			*d = strings.TrimSpace(*d)
		}
	}
}

// Check validates a request sent at now, within the service limits. The messages are in
// the order of the form's fields.
func (in RequestInput) Check(l Limits, now time.Time) (CheckedRequest, FieldErrors) {
	in.Normalise()
	var out CheckedRequest
	var errs FieldErrors
	today := calendar.DateOf(now).Midnight()
	out.CustomerName = in.CustomerName
	errs.Add("customer_name", checkText("請求先の会社名", in.CustomerName, true))
	out.CustomerContactName = in.CustomerContactName
	errs.Add("customer_contact_name", checkText("ご担当者名", in.CustomerContactName, false))
	if e, msg := ValidateEmail(in.CustomerEmail); msg != "" {
		errs.Add("customer_email", strings.Replace(msg, "メールアドレス", "請求先のメールアドレス", 1))
	} else {
		out.CustomerEmail = e
	}
	if n := in.CustomerCorporateNumber; n != "" {
		switch {
		case len(n) != 13 || !AllDigits(n):
			errs.Add("customer_corporate_number", "法人番号は13桁の数字で入力してください")
		case !ValidCorporateNumber(n):
			errs.Add("customer_corporate_number", "法人番号が正しくありません。13桁の数字をご確認ください")
		default:
			out.CustomerCorporateNumber = n
		}
	}
	out.Amount, out.InvoiceNumber, out.InvoiceDate = checkInvoiceHead(in.Amount, in.InvoiceNumber, in.InvoiceDate, l, today, &errs)
	switch t, ok := ParseDate(in.Deadline); {
	case in.Deadline == "":
		errs.Add("deadline", "お支払い期限を入力してください")
	case !ok:
		errs.Add("deadline", "お支払い期限を正しい日付で入力してください（例：2026-12-25）")
	case !t.After(today):
		errs.Add("deadline", "お支払い期限は明日以降の日付を入力してください")
	case t.After(today.AddDate(0, 0, MaxRequestDays)):
		errs.Add("deadline", "お支払い期限は"+strconv.Itoa(MaxRequestDays)+"日以内の日付を入力してください")
	default:
		out.Deadline = t
	}
	out.Message = in.Message
	switch {
	case !utf8.ValidString(in.Message):
		errs.Add("message", "メッセージに読み取れない文字が含まれています。入力し直してください")
	case utf8.RuneCountInString(in.Message) > MaxRequestMessageLen:
		errs.Add("message", "メッセージは"+strconv.Itoa(MaxRequestMessageLen)+"文字以内で入力してください")
	}
	return out, errs
}

// Fields are the checked request's rows for a check-answers page.
func (c CheckedRequest) Fields() []LabeledValue {
	orNone := func(s string) string {
		if s == "" {
			return NotEntered
		}
		return s
	}
	invoiceDate := NotEntered
	if c.InvoiceDate != nil {
		invoiceDate = JapaneseDate(*c.InvoiceDate)
	}
	return []LabeledValue{
		{"customer_name", "請求先の会社名", c.CustomerName},
		{"customer_corporate_number", "請求先の法人番号", orNone(c.CustomerCorporateNumber)},
		{"customer_contact_name", "ご担当者名", orNone(c.CustomerContactName)},
		{"customer_email", "請求先のメールアドレス", c.CustomerEmail},
		{"amount", "請求金額", Yen(c.Amount)},
		{"invoice_number", "請求書番号", orNone(c.InvoiceNumber)},
		{"invoice_date", "請求日", invoiceDate},
		{"deadline", "お支払い期限", JapaneseDate(c.Deadline)},
		{"message", "メッセージ", orNone(c.Message)},
	}
}

// RequestKeyStatus is a request key's state as GET /api/v1/invoices/request_keys/{key}
// answers it (SPEC §3 keyStatus).
type RequestKeyStatus int

const (
	KeyValid   RequestKeyStatus = 1
	KeyExpired RequestKeyStatus = 2
	KeyInvalid RequestKeyStatus = 3
)

// requestKeyBytes is a key's randomness: 256 bits, so guessing one is hopeless however
// many tries are allowed; the try limit only keeps scanners from costing us.
const requestKeyBytes = 32

// NewRequestKey makes a key for a request's link and the hash stored in its place.
func NewRequestKey() (key string, hash []byte, err error) {
	b := make([]byte, requestKeyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	key = base64.RawURLEncoding.EncodeToString(b)
	return key, HashRequestKey(key), nil
}

// HashRequestKey is what is stored of a key: its SHA-256 (a key is random, so no salt or
// slow hash is needed).
func HashRequestKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// WellFormedRequestKey says whether key could be one of ours, so a mistyped link is
// refused without a database query.
func WellFormedRequestKey(key string) bool {
	if len(key) != base64.RawURLEncoding.EncodedLen(requestKeyBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(key)
	return err == nil
}

// KeyStatusOf is the status of a found key: valid while its request is open and its
// deadline (the end of that day in Japan) has not passed; expired after that, or once the
// request was cancelled or expired. A key whose request was paid is used, not expired.
func KeyStatusOf(s ExaminationStatus, deadline, now time.Time) RequestKeyStatus {
	switch {
	case s == Cancel || s == Expired:
		return KeyExpired
	case RequestOpen(s) && RequestDeadlinePassed(deadline, now):
		return KeyExpired
	}
	return KeyValid
}

// RequestDeadlinePassed says whether an open request's deadline day has ended at now: the
// daily job then expires it.
func RequestDeadlinePassed(deadline, now time.Time) bool {
	return !now.Before(calendar.DateOf(deadline).Midnight().AddDate(0, 0, 1))
}

// CollectionNotice is the requester's notification of a change of request id: what
// happened to the request to customer for amount.
func CollectionNotice(a PaymentAction, customer string, amount int64, to ExaminationStatus) (title, body string) {
	what := fmt.Sprintf("%s様へのカード払い依頼（%s）", customer, Yen(amount))
	switch a {
	case ActRequest:
		return "カード払い依頼を送信しました", what + "を送信しました。お客さまにお支払い用のリンクをメールでお送りしています。"
	case ActLink:
		return "お客さまが依頼を受け取りました", what + "をお客さまが受け取りました。カードでのお支払いをお待ちください。"
	case ActSubmit, ActResubmit:
		return "お客さまがカードで支払いました", what + "について、お客さまがカードで支払いました。審査が終わるまでお待ちください。"
	case ActComplete:
		return "カード払い依頼の審査が完了しました", what + "の審査が完了しました。入金予定日にお振り込みします。"
	case ActTransfer:
		return "ご入金が完了しました", what + "について、ご指定の口座へのお振り込みが完了しました。"
	case ActCancel:
		return "カード払い依頼がキャンセルされました", what + "はキャンセルされました。"
	case ActExpire:
		return "カード払い依頼が期限切れになりました", what + "は、お支払い期限までにお支払いがなかったため、期限切れになりました。"
	}
	return "カード払い依頼の状況が変わりました", what + "は「" + CollectionStatusOf(to).Label() + "」になりました。"
}

// CollectionLink is the requester's page of request id in the list its status belongs to.
func CollectionLink(id int64, s ExaminationStatus) string {
	b, ok := CollectionBucketOf(CollectionStatusOf(s))
	if !ok {
		b = CollectionHistory
	}
	return fmt.Sprintf("/collections/%s/%d", b, id)
}

// RequestMailFacts are what the customer's mail of a request says: who asks (with the
// corporate number verified at their registration), how much their card is charged, by
// when, and the link holding the key.
type RequestMailFacts struct {
	RequesterName            string
	RequesterCorporateNumber string
	CustomerName             string
	CustomerContactName      string
	Amount                   int64
	Deadline                 time.Time
	InvoiceNumber            string
	Message                  string
	Link                     string
}
