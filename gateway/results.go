package gateway

// ResultCode is a gateway result code in the VeriTrans style that SPEC.md's
// v_result_message call implies: one code per outcome, each with a Japanese message
// that tells the buyer what to do next. Both gateways map their PSP's answers to these.
type ResultCode string

const (
	ResultApproved          ResultCode = "A001" // authorised (or captured, voided, refunded)
	ResultActionRequired    ResultCode = "A002" // 3-D Secure challenge needed
	ResultChallengeFailed   ResultCode = "G001" // 3-D Secure authentication failed
	ResultInsufficientFunds ResultCode = "G012"
	ResultCardNumberInvalid ResultCode = "G030"
	ResultBrandNotAccepted  ResultCode = "G031"
	ResultCardRestricted    ResultCode = "G042" // lost or stolen: the buyer is told to call the issuer, never why
	ResultSecurityCodeWrong ResultCode = "G044"
	ResultExpiredCard       ResultCode = "G054"
	ResultOverLimit         ResultCode = "G055"
	ResultDeclined          ResultCode = "G056" // any other refusal by the issuer
	ResultProcessorError    ResultCode = "G097"
	ResultTimeout           ResultCode = "G098" // no answer in time: the outcome is looked up
)

type resultInfo struct {
	message string
	decline bool
}

var results = map[ResultCode]resultInfo{
	ResultApproved:          {"正常に処理されました。", false},
	ResultActionRequired:    {"カード会社の本人認証（3-Dセキュア）が必要です。画面の案内に沿って認証を行ってください。", false},
	ResultChallengeFailed:   {"カード会社の本人認証（3-Dセキュア）に失敗しました。もう一度お試しいただくか、別のカードをご利用ください。", true},
	ResultInsufficientFunds: {"カードのご利用可能額が不足しています。別のカードをご利用いただくか、カード会社にお問い合わせください。", true},
	ResultCardNumberInvalid: {"カード番号が正しくありません。カードに記載の番号をご確認のうえ、もう一度入力してください。", true},
	ResultBrandNotAccepted:  {"このカードブランドはご利用いただけません。JCB、VISA、Mastercard のカードをご利用ください。", true},
	ResultCardRestricted:    {"このカードはご利用いただけません。カード会社にお問い合わせいただくか、別のカードをご利用ください。", true},
	ResultSecurityCodeWrong: {"セキュリティコードが正しくありません。カード裏面に記載の3桁の数字をご確認のうえ、もう一度入力してください。", true},
	ResultExpiredCard:       {"カードの有効期限が切れています。有効期限をご確認いただくか、別のカードをご利用ください。", true},
	ResultOverLimit:         {"カードのご利用限度額を超えています。別のカードをご利用いただくか、カード会社にお問い合わせください。", true},
	ResultDeclined:          {"このカードはご利用いただけませんでした。別のカードをご利用いただくか、カード会社にお問い合わせください。", true},
	ResultProcessorError:    {"カード会社との通信でエラーが発生しました。しばらく時間をおいてから、もう一度お試しください。", true},
	ResultTimeout:           {"カード会社からの応答がありませんでした。ご利用状況を確認しています。しばらく時間をおいてから、お支払い状況をご確認ください。", true},
}

// ResultCodes lists every code, in a stable order; the tests walk it to check that each
// has a Japanese message and an answer at GET /api/v1/v_result_message/{code}.
func ResultCodes() []ResultCode {
	return []ResultCode{
		ResultApproved, ResultActionRequired, ResultChallengeFailed, ResultInsufficientFunds,
		ResultCardNumberInvalid, ResultBrandNotAccepted, ResultCardRestricted, ResultSecurityCodeWrong,
		ResultExpiredCard, ResultOverLimit, ResultDeclined, ResultProcessorError, ResultTimeout,
	}
}

// Message is the buyer's Japanese message for code; ok is false for an unknown code.
func (c ResultCode) Message() (msg string, ok bool) {
	r, ok := results[c]
	return r.message, ok
}

// IsDecline says whether the code is a refusal the buyer must act on.
func (c ResultCode) IsDecline() bool { return results[c].decline }

// ResultMessage is the message for code, or the general decline message for a code we
// do not know, so that a buyer never sees a bare code.
func ResultMessage(c ResultCode) string {
	if m, ok := c.Message(); ok {
		return m
	}
	return results[ResultDeclined].message
}
