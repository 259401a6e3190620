package account

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"cardpay/auth"
	"cardpay/pay"
)

// よくあるご質問 (issue 31): the questions people ask about the service, answered from
// the rules the code applies. Every figure that a rule or the configuration decides is
// taken from there (pay, auth, the rate limiter), never typed here, so that the answers
// stay true when a rule changes; FAQFacts carries the ones configuration may change.

// FAQFacts are the figures of the answers that configuration decides.
type FAQFacts struct {
	// Payment are the amount limits and the fee rate (PAYMENT_MIN_YEN, PAYMENT_MAX_YEN,
	// FEE_BASIS_POINTS).
	Payment pay.Limits
	// Rate are the rate limiter's rules (RATE_LIMITS); nil is DefaultLimits.
	Rate Limits
}

// FAQGroup is one heading of the questions.
type FAQGroup struct {
	ID, Heading string
	Items       []FAQItem
}

// FAQItem is one question: ID is its anchor on the page (#<ID>), stable so that other
// pages and mails can link to it.
type FAQItem struct {
	ID, Question string
	Answer       []string
}

// FAQ is every question, grouped, with the figures of f.
func FAQ(f FAQFacts) []FAQGroup {
	rate := f.Rate
	if rate == nil {
		rate = DefaultLimits
	}
	l := f.Payment
	fee := pay.FeeRateLabel(l.FeeBasisPoints)
	example := int64(100_000)
	th := auth.DefaultThrottle
	return []FAQGroup{
		{"fees", "料金・手数料", []FAQItem{
			{"fee-rate", "手数料はいくらですか？", []string{
				fmt.Sprintf("お支払い1件ごとに、請求金額の%s（税込）です。1円未満は切り捨てます。たとえば請求金額が%sなら、手数料は%s、カードへのご請求は%sです。",
					fee, pay.Yen(example), pay.Yen(pay.Fee(example, l.FeeBasisPoints)), pay.Yen(example+pay.Fee(example, l.FeeBasisPoints))),
				"手数料とカードへのご請求額は、申請を確定する前の確認画面に表示されます。登録料や月額料金はかかりません。",
			}},
			{"fee-tax", "手数料に消費税は含まれていますか？", []string{
				fmt.Sprintf("はい。手数料は消費税（%d%%）込みの金額です。振込が完了すると、手数料の適格請求書（インボイス）をダウンロードできます。", pay.FeeTaxRate),
			}},
			{"promotion-code", "プロモーションコードはどう使いますか？", []string{
				"お支払いの確認画面で「プロモーションコード」に入力すると、コードの有効期間中は手数料率が割り引かれます。割引後の手数料はその場で確認画面に表示されます。",
				"1つのコードをご利用いただけるのは、1事業者につき1回限りです。有効期間外のコードや、すでにご利用済みのコードは使えません。",
			}},
		}},
		{"cards", "カード", []FAQItem{
			{"card-brands", "どのカードが使えますか？", []string{
				"JCB、VISA、Mastercard のクレジットカードをご利用いただけます。American Express と Diners Club はご利用いただけません。",
			}},
			{"card-count", "カードは何枚まで登録できますか？", []string{
				fmt.Sprintf("1つのアカウントに%d枚まで登録できます。登録したカードの中から、お支払いのたびに使うカードを選べます。よく使うカードは「お支払い方法」の画面で既定のカードにできます。", pay.MaxSavedCards),
			}},
			{"card-declined", "カードの登録ができません。", []string{
				"カードを登録するとき、カード会社に有効なカードかどうかを確認します（0円の確認で、ご請求は発生しません）。カード会社に承認されなかった場合は、番号・有効期限・セキュリティコードをご確認いただくか、カード会社にお問い合わせください。",
				fmt.Sprintf("承認されない確認が1日（日本時間）に%d回続くと、不正利用を防ぐため、その日はカードを追加できなくなります。", cardDeclineLimit(rate)),
			}},
			{"three-d-secure", "3Dセキュア（本人認証）の画面が表示されました。", []string{
				"カード会社が本人確認を求めた場合、カードの登録時やお支払いの申請時に、カード会社の本人認証（3Dセキュア）の画面が開きます。カード会社が指定するパスワードや確認コードを入力してください。認証が終わると、自動的にこのサービスの画面に戻ります。",
				"認証に失敗したり画面を閉じたりした場合、カードは登録されず、お支払いも申請されません。もう一度お試しください。",
			}},
			{"card-data", "カード番号はこのサービスに保存されますか？", []string{
				"いいえ。カード番号とセキュリティコードは、このサービスのサーバーを通らず、決済代行会社に直接送られます。このサービスが保存するのは、カードのブランド、下4桁、有効期限など、カード番号以外の情報だけです。",
			}},
		}},
		{"payments", "お支払いと振込日", []FAQItem{
			{"amount-limits", "1回にいくらまで支払えますか？", []string{
				fmt.Sprintf("請求書1件につき、%sから%sまでお支払いいただけます。あわせてカードのご利用可能額の範囲内である必要があります。", pay.Yen(l.MinAmount), pay.Yen(l.MaxAmount)),
			}},
			{"file-types", "アップロードできる請求書のファイルは？", []string{
				fmt.Sprintf("PDF、JPEG、PNG のファイルで、1ファイル%dMBまでです。PDF は%dページまで、画像は%d万画素までです。パスワード付きの PDF や、JavaScript を含む PDF はアップロードできません。",
					pay.MaxInvoiceFileBytes>>20, pay.MaxInvoicePDFPages, pay.MaxInvoiceImagePixels/10_000),
				"アップロードした請求書は自動で読み取られ、取引先・金額・振込先口座などの入力欄に反映されます。読み取れなかった項目は手で入力してください。",
			}},
			{"transfer-date", "取引先への振込日はいつになりますか？", []string{
				fmt.Sprintf("振込日は申請のときにお選びいただけます。審査に%d銀行営業日かかるため、選べるのは、申請日から%d銀行営業日後以降で、請求書の支払期日までの銀行営業日です（申請日から%d日以内）。",
					pay.TransferLeadDays, pay.TransferLeadDays, pay.MaxTransferDays),
				"土日・祝日・年末年始（12月31日〜1月3日）は金融機関の休業日のため、振込日に選べません。",
			}},
			{"cutoff", "申請の締め切り時刻はありますか？", []string{
				fmt.Sprintf("銀行営業日の%d時（日本時間）までの申請は、その日を起点に数えます。%d時以降や休業日の申請は、翌銀行営業日を起点に数えます。たとえば月曜日の%d時前に申請すると最短で木曜日、%d時以降だと最短で金曜日に振り込みます。",
					pay.TransferCutoffHour, pay.TransferCutoffHour, pay.TransferCutoffHour, pay.TransferCutoffHour),
			}},
			{"due-date", "支払期日に間に合わないと表示されました。", []string{
				"最短の振込日が請求書の支払期日より後になる場合は、期日までに振り込めません。取引先と支払期日をご相談のうえ、変更後の支払期日を入力して申請してください。",
			}},
			{"card-charge", "カードにはいつ請求されますか？", []string{
				"申請のときはカードのご利用枠を確保（与信）するだけです。審査が完了した時点でカードのご利用が確定し、遅くとも振込日の前銀行営業日までに確定します。その後はカード会社の締め日と支払日に従ってご請求されます。",
			}},
			{"cancel", "申請したお支払いを取り消せますか？", []string{
				"振込の手続きに入る前であれば、お支払いの詳細画面から「キャンセル」できます。カードの与信は取り消され、ご利用が確定していた場合は返金されます。",
				"振込の手続きに入った後や、振込が完了した後はキャンセルできません。",
			}},
		}},
		{"screening", "審査", []FAQItem{
			{"screening-what", "審査では何を確認しますか？", []string{
				"アップロードされた請求書と、入力された取引先・請求金額・振込先口座・宛名が一致しているかを、担当者2名で確認します。初めてお支払いいただく口座などは、特に慎重に確認します。",
				"審査の結果、お支払いをお断りすることがあります。その場合はお支払いをキャンセルし、カードの与信を取り消します。",
			}},
			{"send-back", "「差し戻し」とは何ですか？", []string{
				"審査で請求書と申請内容の違いが見つかったとき、修正をお願いするためにお支払いをお戻しすることです。お知らせとメールで理由をお伝えします。理由は次のいずれかです。",
				strings.Join(sendBackLabels(), "、") + "。",
			}},
			{"send-back-fix", "差し戻されたお支払いはどう修正しますか？", []string{
				"「請求書カード払い」の「審査中」の一覧で「要対応」と表示されたお支払いを開き、差し戻しの理由を確認して「内容を修正して再申請する」から修正してください。請求金額が変わる場合は、新しい金額でカードの与信を行い、修正前の与信は取り消します。再申請すると、あらためて審査を行います。",
			}},
		}},
		{"receipts", "領収書・インボイス", []FAQItem{
			{"receipt", "領収書はもらえますか？", []string{
				"取引先への振込が完了すると、お支払いの詳細画面から「支払明細（PDF）」と「手数料の適格請求書（PDF）」をダウンロードできます。振込完了のお知らせにもご案内します。",
			}},
			{"qualified-invoice", "適格請求書（インボイス）はどれですか？", []string{
				"このサービスの手数料については、当社が適格請求書発行事業者として、登録番号・税率・消費税額を記載した適格請求書を発行します。",
				"取引先への代金そのものの適格請求書は、取引先が発行したもの（アップロードされた請求書）です。このサービスが代わりに発行することはありません。",
			}},
			{"accounting-export", "会計ソフトに取り込めますか？", []string{
				"「支払履歴」の「会計ソフト用データのダウンロード」から、期間を選んで仕訳の CSV をダウンロードできます。freee会計、マネーフォワード クラウド会計、弥生会計の形式に対応しています。",
			}},
		}},
		{"collections", "カード払い依頼", []FAQItem{
			{"collections-what", "カード払い依頼とは何ですか？", []string{
				"自社の請求書を、お客さまにカードで支払ってもらうよう依頼する機能です。依頼を送るとお客さまにメールが届き、お客さまがカードで支払うと、審査のうえ自社の口座へ振り込まれます。",
				"手数料は、お客さま（支払者）の負担か、自社（依頼者）の負担かを依頼ごとに選べます。自社の負担にした場合は、振込額から差し引きます。",
			}},
			{"collections-who", "カード払い依頼は誰が送れますか？", []string{
				"法人のお客さまのみです。個人事業主のアカウントではカード払い依頼のタブは表示されず、依頼を送ることはできません。一部の法人は、法人番号によりご利用いただけない場合があります。",
				"個人事業主の方も、届いたカード払い依頼をカードで支払うことはできます。",
			}},
			{"collections-deadline", "依頼の支払期限と取り消しは？", []string{
				fmt.Sprintf("支払期限は送信日から%d日以内で指定できます。期限を過ぎると依頼は期限切れになり、依頼のリンクは使えなくなります。お客さまが支払う前であれば、依頼の画面の「この依頼をキャンセルする」から取り消せます。", pay.MaxRequestDays),
				fmt.Sprintf("お客さまへのメッセージは%d文字まで添えられます。", pay.MaxRequestMessageLen),
			}},
		}},
		{"sole-proprietors", "個人事業主の方", []FAQItem{
			{"sole-use", "個人事業主でも使えますか？", []string{
				"はい。会員登録で「個人事業主」を選び、屋号と事業所・ご自宅の住所をご登録ください。請求書のカード払いと、届いた請求書の受け取りをご利用いただけます。カード払い依頼の送信は法人のお客さまのみです。",
			}},
		}},
		{"security", "アカウント・セキュリティ", []FAQItem{
			{"two-factor", "二段階認証は設定できますか？", []string{
				"「セキュリティ設定」で、ログインのときにパスワードに加えて確認コードを入力する二段階認証を設定できます。方法は「メールで確認コードを受け取る」か「認証アプリを使う」のどちらかです。",
				fmt.Sprintf("メールで届く確認コードは6桁で、有効期限は%d分です。", int(auth.CodeTTL/time.Minute)),
			}},
			{"recovery-codes", "認証アプリの入ったスマートフォンをなくしました。", []string{
				fmt.Sprintf("認証アプリを設定したときに表示された%d個のリカバリーコードのうち1つを、確認コードの代わりに入力するとログインできます。各コードは1回だけ使えます。ログイン後、「セキュリティ設定」で二段階認証を設定し直してください。", auth.RecoveryCodeCount),
			}},
			{"locked", "ログインできなくなりました（アカウントのロック）。", []string{
				fmt.Sprintf("パスワードの誤りが%d回続くと、不正なログインを防ぐため、アカウントを%d分間ロックします。画面に表示される時刻以降にもう一度お試しください。誤りが%d回続いた後は、次のログインまで少し待つ必要があります。",
					th.FailuresBeforeLock, int(th.LockFor/time.Minute), th.FailuresBeforeDelay),
				"パスワードを再設定すると、ロックはすぐに解除されます。",
			}},
			{"password-reset", "パスワードを忘れました。", []string{
				"ログイン画面の「パスワードをお忘れの方」から、ご登録のメールアドレスを入力してください。届いた確認コードを入力し、新しいパスワードを設定します。" + perHour(rate, ActPasswordReset, "パスワード再設定のメールは、同じメールアドレスに"),
			}},
			{"too-many", "「短時間に操作が繰り返されたため」と表示されました。", []string{
				"不正な利用を防ぐため、ログインや確認コードの入力、メールの送信などを短い時間に何度も繰り返すと、一時的に受け付けを停止します。画面に表示される時刻以降にもう一度お試しください。",
			}},
		}},
		{"received", "請求書の受け取り", []FAQItem{
			{"inbox-address", "取引先からの請求書をメールで受け取れますか？", []string{
				"「受取請求書」の「請求書受付メールアドレス」で、自社専用の受付アドレスを確認できます。取引先にこのアドレスへ請求書を添付して送ってもらうと、「受取請求書」の「新着」に並びます。",
				fmt.Sprintf("1通のメールに添付できるファイルは%d個まで、メールの大きさは%dMBまでです。ZIP などに圧縮せず、PDF、JPEG、PNG をそのまま添付してください。送信元の認証（DMARC）に失敗したメールは受け付けません。", pay.MaxInboundAttachments, pay.MaxInboundMailBytes>>20),
			}},
			{"upload-link", "取引先にアップロードしてもらうことはできますか？", []string{
				fmt.Sprintf("「登録取引先」で取引先を開き、「請求書アップロードのご案内」からリンクをメールで送れます。取引先はアカウントなしで請求書をアップロードできます。リンクは%d日間有効で、新しく送ると前のリンクは使えなくなります。", pay.SupplierUploadLinkDays),
			}},
			{"received-pay", "受け取った請求書をそのまま支払えますか？", []string{
				"はい。受け取った請求書を開いて「この請求書をカードで支払う」を選ぶと、請求書のファイルと読み取った内容が入った状態でお支払いの申請に進みます。ほかの方法で支払った請求書や支払不要の請求書は、その旨を記録して一覧から分けられます。",
			}},
		}},
		{"partners", "連携", []FAQItem{
			{"partner-apps", "会計ソフトなど外部のアプリと連携できますか？", []string{
				"連携に対応したアプリから接続すると、このサービスの同意画面が開きます。アプリに許可する内容（お支払いの一覧を見る、下書きを作る、会計ソフト用のデータを読むなど）を確認して許可してください。",
				"アプリが作れるのは下書きまでです。申請とカードでのお支払いは、必ずご自身がログインして行います。",
			}},
			{"partner-revoke", "連携をやめるには？", []string{
				"「セキュリティ設定」の「連携中のアプリケーション」から、アプリごとに連携を解除できます。解除するとアプリはすぐにアクセスできなくなります。心当たりのないアプリがあれば解除し、パスワードを変更してください。",
			}},
		}},
	}
}

// cardDeclineLimit is the declines of a Japan day that lock adding cards: the rule
// card_decline.target (cards.DeclineLimit's default, 5).
func cardDeclineLimit(rate Limits) int {
	if r, ok := rate[ActCardDecline+".target"]; ok && r.N > 0 {
		return r.N
	}
	return 5
}

// perHour says how many of action's mails one address gets in its window, after
// prefix ("…に1時間に5回まで送れます。"), or "" when the rule is off.
func perHour(rate Limits, action, prefix string) string {
	r, ok := rate[action+".target"]
	if !ok || r.N <= 0 {
		return ""
	}
	return fmt.Sprintf("%s%sに%d回まで送れます。", prefix, windowLabel(r.Window), r.N)
}

// windowLabel is a rate-limit window in Japanese: 1時間, 15分, 1日.
func windowLabel(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d日", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%d時間", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d分", d/time.Minute)
	}
	return fmt.Sprintf("%d秒", d/time.Second)
}

func sendBackLabels() []string {
	var out []string
	for _, r := range pay.SendBackReasons {
		if r != pay.SendBackOther {
			out = append(out, "「"+r.Label()+"」")
		}
	}
	return append(out, "「"+pay.SendBackOther.Label()+"」（担当者からのメッセージでお伝えします）")
}

// MaxFAQQueryRunes is the longest search the FAQ takes: a longer query is cut (nobody
// types a question's whole text, and every item is compared with it).
const MaxFAQQueryRunes = 50

// CleanFAQQuery is the search as it is matched and shown: valid UTF-8, control
// characters (a NUL among them) dropped, spaces of every width made one, at most
// MaxFAQQueryRunes characters.
func CleanFAQQuery(q string) string {
	q = strings.ToValidUTF8(q, "")
	q = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r) || r == utf8.RuneError:
			return -1
		}
		return r
	}, q)
	q = strings.Join(strings.Fields(q), " ")
	if utf8.RuneCountInString(q) > MaxFAQQueryRunes {
		q = strings.TrimSpace(string([]rune(q)[:MaxFAQQueryRunes]))
	}
	return q
}

// foldFAQ makes text comparable whatever width or case it was typed in: full-width
// letters and digits become ASCII (ＪＣＢ is JCB, ３Ｄ is 3D), half-width katakana
// full-width (ｶｰﾄﾞ is カード), and letters lower case.
func foldFAQ(s string) string {
	return strings.ToLower(width.Fold.String(s))
}

// SearchFAQ keeps the questions whose question or answer holds every word of q (words
// are separated by spaces), in their groups, dropping the groups left empty; the count
// is the questions kept. A q with no words keeps everything.
func SearchFAQ(groups []FAQGroup, q string) ([]FAQGroup, int) {
	words := strings.Fields(foldFAQ(CleanFAQQuery(q)))
	var out []FAQGroup
	n := 0
	for _, g := range groups {
		kept := g
		kept.Items = nil
		for _, it := range g.Items {
			text := foldFAQ(it.Question + "\n" + strings.Join(it.Answer, "\n"))
			match := true
			for _, w := range words {
				if !strings.Contains(text, w) {
					match = false
					break
				}
			}
			if match {
				kept.Items = append(kept.Items, it)
			}
		}
		if len(kept.Items) > 0 {
			out = append(out, kept)
			n += len(kept.Items)
		}
	}
	return out, n
}
