package account

import (
	"context"

	"cardpay/store"
)

// TermsEffectiveDate is when the terms of version TermsVersion took effect. Change it,
// the text below and TermsVersion together: every user is then asked to accept again.
const TermsEffectiveDate = "2026年4月1日"

// TermsArticle is one article of the terms of service.
type TermsArticle struct {
	Heading    string
	Paragraphs []string
}

// Terms is the text of the terms of service of version TermsVersion; "本サービス" is the
// service named by the operator's SERVICE_NAME.
var Terms = []TermsArticle{
	{"第1条（目的と適用）", []string{
		"本規約は、当社が提供する請求書のクレジットカード払いサービス（以下「本サービス」といいます）の利用条件を定めるものです。",
		"本サービスを利用するお客さま（以下「利用者」といいます）は、本規約に同意のうえ本サービスを利用するものとします。",
	}},
	{"第2条（利用登録）", []string{
		"本サービスは、日本国内で事業を営む法人および個人事業主が、所定の手続きに従い利用登録を行うことで利用できます。",
		"当社は、登録内容に虚偽があった場合その他当社が不適当と判断した場合、利用登録をお断りすることがあります。",
		"利用者は、登録内容に変更があった場合、速やかに本サービス上で変更の手続きを行うものとします。",
	}},
	{"第3条（アカウントの管理）", []string{
		"利用者は、自己の責任においてメールアドレス、パスワードおよび二段階認証の手段を管理し、第三者に利用させてはなりません。",
		"アカウントが第三者に利用されたおそれがある場合、利用者は直ちにパスワードを変更し、当社に連絡するものとします。",
	}},
	{"第4条（サービスの内容）", []string{
		"利用者は、取引先から受け取った請求書の代金を、当社を通じてクレジットカードで支払うことができます。当社は、審査の完了後、利用者が指定した振込日に取引先の口座へ代金を振り込みます。",
		"利用できるクレジットカードは、当社が定める国際ブランド（JCB、VISA、Mastercard）のものに限ります。",
		"当社は、請求書の内容、取引の実在性その他の事項を審査し、審査の結果によりお支払いをお断りすることがあります。",
	}},
	{"第5条（手数料）", []string{
		"利用者は、お支払いごとに、当社所定の手数料を請求書の金額とあわせてクレジットカードで支払うものとします。手数料の額は、お支払いの確定前に画面に表示します。",
	}},
	{"第6条（禁止事項）", []string{
		"利用者は、架空の取引や実態のない請求書による利用、クレジットカードの現金化を目的とする利用、法令または公序良俗に反する取引への利用、他人のクレジットカードの利用、その他当社が不適切と判断する行為をしてはなりません。",
	}},
	{"第7条（サービスの停止・変更）", []string{
		"当社は、システムの保守、障害、天災その他やむを得ない事由がある場合、事前の通知なく本サービスの全部または一部を停止することがあります。",
	}},
	{"第8条（免責）", []string{
		"当社は、当社の故意または重大な過失による場合を除き、本サービスの利用により利用者に生じた損害について責任を負いません。",
	}},
	{"第9条（個人情報）", []string{
		"当社は、利用者の個人情報を、プライバシーポリシーおよび「個人情報の取り扱いについて」に従い適切に取り扱います。",
	}},
	{"第10条（規約の変更）", []string{
		"当社は、必要に応じて本規約を変更できるものとします。変更後の規約は本サービス上に表示した時点から効力を生じ、利用者は次回のログイン時に変更後の規約への同意を求められます。",
	}},
	{"第11条（準拠法・管轄裁判所）", []string{
		"本規約は日本法に準拠し、本サービスに関して生じた紛争については、東京地方裁判所を第一審の専属的合意管轄裁判所とします。",
	}},
}

// NeedsTerms reports whether u accepted an older version of the terms (or none) and
// must accept the current one before using the service.
func NeedsTerms(u store.User) bool { return u.TermsVersion < TermsVersion }

// AcceptTerms records that u accepted the current terms (PUT users/license).
func (s *Service) AcceptTerms(ctx context.Context, u store.User) error {
	return s.Store.AcceptTerms(ctx, u.BuyerID, u.ID, TermsVersion)
}
