package info

import (
	"bytes"
	"image"
	_ "image/jpeg" // the manual's pictures are JPEGs; their sizes are read from them
	"sync"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/static"
	pages "cardpay/views/info"
)

// ManualPage is 操作マニュアル: each journey step by step, with pictures of the real
// pages. tools/e2e/manual.test.mjs walks the journeys and takes the pictures into
// static/manual/<Image>.jpg on every run, so that a page that changes changes its
// picture (or fails the journey); the pictures are committed, so the manual shows them
// without running the suite.
var ManualPage = web.Page{Path: ManualPath, Title: "操作マニュアル", Access: web.Public}

// manualJourney is one journey of the manual.
type manualJourney struct {
	id, heading, intro string
	steps              []manualStep
}

// manualStep is one step: what to do, and the picture of the page where it is done
// (image "": none). alt says what the picture shows; caption names the page.
type manualStep struct {
	heading string
	text    []string
	image   string
	alt     string
	caption string
}

// manualJourneys are the manual's journeys, in the order a new buyer meets them.
var manualJourneys = []manualJourney{
	{"signup", "会員登録", "メールアドレスを確認してから、事業者の情報を登録します。", []manualStep{
		{"メールアドレスとパスワードを入力する", []string{
			"ログイン画面の「新規登録はこちら」から会員登録の画面を開き、メールアドレスとパスワードを入力します。利用規約とプライバシーポリシーをお読みのうえ、同意のチェックを入れて送信してください。",
		}, "signup-form", "会員登録の画面。メールアドレスとパスワードの入力欄、利用規約とプライバシーポリシーへの同意のチェックボックス、送信ボタンが並んでいる。", "会員登録の画面"},
		{"認証コードを入力する", []string{
			"入力したメールアドレスに6桁の認証コードが届きます。画面に入力してください。コードの有効期限は10分です。届かないときは、迷惑メールのフォルダをご確認のうえ、画面の「コードを再送信」で送り直せます。",
		}, "signup-code", "認証コードの入力画面。メールアドレス宛てに認証コードを送信した旨の説明と、6桁のコードの入力欄がある。", "認証コードの入力画面"},
		{"事業形態を選び、利用者情報を登録する", []string{
			"法人か個人事業主かを選び、会社（屋号）と代表者、ご担当者の情報を入力します。法人の場合は法人番号を入力すると、国税庁の法人番号で会社名を確認します。確認画面で内容を確かめて登録すると、サービスを使い始められます。",
		}, "signup-registration", "利用者情報の登録の最初の画面。事業形態として「法人」と「個人事業主」のどちらかを選ぶラジオボタンがある。", "事業形態の選択"},
	}},
	{"cards", "カードの登録", "お支払いに使うクレジットカード（JCB、VISA、Mastercard）を登録します。", []manualStep{
		{"「お支払い方法」を開く", []string{
			"アカウントのメニューから「お支払い方法」を開き、「新しいカードを追加する」を押します。",
		}, "card-list", "お支払い方法の画面。まだカードが登録されておらず、「新しいカードを追加する」のボタンがある。", "お支払い方法（カード未登録）"},
		{"カード情報を入力する", []string{
			"カード番号、有効期限、セキュリティコード、名義を入力して登録します。カード情報は決済代行会社の入力欄に直接入力され、このサービスのサーバーを通りません。",
		}, "card-add", "カードの追加の画面。決済代行会社の入力欄に、カード番号、有効期限、セキュリティコード、カード名義が入力されている。", "カードの追加"},
		{"本人認証（3Dセキュア）を行う", []string{
			"カード会社が本人確認を求めた場合は、カード会社の本人認証の画面が開きます。カード会社が指定するパスワードや確認コードを入力してください。",
		}, "card-3ds", "カード会社の本人認証（3Dセキュア）の画面。ご利用金額とカードの下4桁、ワンタイムパスワードの入力欄と「認証する」ボタンがある。", "本人認証（3Dセキュア）の画面"},
		{"登録されたカードを確かめる", []string{
			"認証が終わると「お支払い方法」に戻り、登録したカードが表示されます。カードの締め日と支払日を設定しておくと、申請のときにカードの引き落とし日の目安が表示されます。",
		}, "card-added", "お支払い方法の画面。登録したVISAカードが下4桁と有効期限とともに表示されている。", "お支払い方法（カード登録後）"},
	}},
	{"pay", "請求書をカードで支払う", "請求書をアップロードし、振込先と振込日を選んで、カードで申請します。", []manualStep{
		{"請求書をアップロードする", []string{
			"「請求書カード払い」タブの「請求書のアップロード」で、請求書のファイル（PDF、JPEG、PNG、10MBまで）を選んで送信します。",
		}, "pay-upload", "請求書のアップロード画面。請求書ファイルを選ぶ欄と送信ボタンがある。", "請求書のアップロード"},
		{"読み取った内容を確かめる", []string{
			"請求書の内容が自動で読み取られ、読み取れた項目は次の画面の入力欄に入ります。読み取りが終わったら「請求書の情報を入力する」に進みます。読み取れなかった項目は、次の画面で入力してください。",
		}, "pay-file", "アップロードした請求書の画面のうち、読み取り結果の部分。読み取りが終わったことの表示と、「請求書の情報を入力する」のボタンがある。", "アップロードした請求書"},
		{"支払先（取引先）を選ぶ", []string{
			"登録済みの取引先から支払先を選びます。新しい取引先の場合は「新しい取引先を追加する」を選び、その場で登録できます。",
		}, "pay-supplier", "支払先の選択の画面。登録済みの取引先のラジオボタンと、新しい取引先を追加する選択肢がある。", "支払先の選択"},
		{"振込先口座を選ぶ", []string{
			"取引先の振込先口座を選びます。請求書に書かれた口座と同じものを選んでください。",
		}, "pay-account", "振込先口座の選択の画面。取引先の登録済みの口座がラジオボタンで並んでいる。", "振込先口座の選択"},
		{"請求金額と振込日を入力する", []string{
			"請求金額（税込）、請求書番号、支払期日を確かめ、カレンダーから振込日を選びます。選べるのは審査に必要な日数の後の銀行営業日です。",
		}, "pay-invoice", "請求書の内容と振込日の入力画面。請求金額、請求書番号、支払期日の入力欄と、振込日を選ぶカレンダーがある。", "請求書の内容と振込日"},
		{"申請内容を確かめて申請する", []string{
			"請求金額、手数料、カードへのご請求額、振込日までの予定と使うカードを確かめます。プロモーションコードをお持ちの場合はここで入力します。「この内容で申請する」を押すと、カードの与信（ご利用枠の確保）を行います。",
		}, "pay-confirm", "申請内容の確認の画面のうち、お支払い金額の部分。請求金額、手数料、カードへのご請求額、プロモーションコードの入力欄、使うカードと「この内容で申請する」ボタンがある。", "申請内容の確認"},
		{"本人認証（3Dセキュア）を行う", []string{
			"カード会社が本人確認を求めた場合は、カードの登録のときと同じように本人認証の画面が開きます。",
		}, "pay-3ds", "お支払いの申請時に開いたカード会社の本人認証（3Dセキュア）の画面。ご利用金額とカード、ワンタイムパスワードの入力欄がある。", "お支払いの本人認証"},
		{"申請の完了", []string{
			"申請が受け付けられると完了の画面になります。審査が完了すると「振込予定」に移り、振込日に取引先へお振り込みします。状況はお知らせとメールでお伝えします。",
		}, "pay-complete", "支払申請の完了の画面。申請を受け付けた旨と、このあとの流れ、「このお支払いを見る」のリンクがある。", "支払申請の完了"},
	}},
	{"suppliers", "取引先の登録", "よく支払う取引先と振込先口座を、先に登録しておけます。", []manualStep{
		{"取引先の事業形態を選ぶ", []string{
			"「登録取引先」タブの「取引先を追加」から、取引先が法人か個人事業主かを選びます。",
		}, "supplier-form", "取引先の追加の画面。取引先の事業形態として法人と個人事業主を選ぶラジオボタンがある。", "取引先の事業形態"},
		{"取引先の情報を入力する", []string{
			"法人の場合は法人番号と会社名、フリガナを入力します。",
		}, "supplier-details", "取引先情報の入力画面。法人番号、会社名、会社名のフリガナの入力欄がある。", "取引先情報の入力"},
		{"振込先口座を入力する", []string{
			"金融機関と支店を選び、口座種別、口座番号、口座名義（カナ）を入力します。",
		}, "supplier-bank", "振込先口座の入力画面。金融機関と支店、口座種別、口座番号、口座名義の入力欄がある。", "振込先口座の入力"},
		{"確認して登録する", []string{
			"入力内容を確かめて「登録する」を押します。登録した取引先は、当社で確認を行います。",
		}, "supplier-confirm", "取引先の登録内容の確認画面。会社名、法人番号、口座の内容が変更リンクとともに並んでいる。", "登録内容の確認"},
	}},
	{"send-back", "差し戻しへの対応", "審査で請求書と申請内容の違いが見つかると、お支払いが差し戻されます。", []manualStep{
		{"差し戻しの理由を確かめる", []string{
			"お知らせとメールでご連絡します。「審査中」の一覧で「要対応」と表示されたお支払いを開くと、差し戻しの理由が表示されます。",
		}, "send-back-payment", "差し戻されたお支払いの画面。「要対応」の表示と差し戻しの理由、「内容を修正して再申請する」のボタンがある。", "差し戻されたお支払い"},
		{"修正して再申請する", []string{
			"「内容を修正して再申請する」を押し、請求書に合わせて内容を直して再申請します。請求金額が変わる場合は、新しい金額でカードの与信を行います。再申請すると、あらためて審査を行います。",
		}, "send-back-edit", "お支払いの修正画面。請求金額などの入力欄に申請した内容が入っている。", "お支払いの修正"},
	}},
	{"receipts", "領収書", "取引先への振込が完了すると、支払明細と手数料の適格請求書をダウンロードできます。", []manualStep{
		{"支払明細と適格請求書をダウンロードする", []string{
			"「支払履歴」から振込が完了したお支払いを開き、「領収書」の「支払明細（PDF）」と「手数料の適格請求書（PDF）」をダウンロードします。会計ソフト用の仕訳データは「会計ソフト用データのダウンロード」から期間を指定してダウンロードできます。",
		}, "receipts", "振込が完了したお支払いの画面の一部。「領収書」の見出しの下に、支払明細と手数料の適格請求書のダウンロードリンクがある。", "領収書のダウンロード"},
	}},
	{"collections", "カード払い依頼（法人のお客さま）", "自社の請求書を、お客さまにカードで支払ってもらうよう依頼します。個人事業主のアカウントではご利用いただけません。", []manualStep{
		{"依頼を作成する", []string{
			"「カード払い依頼」タブの「カード払い依頼を作成」で、請求書をアップロードするか、内容を手で入力します。続けて、お客さまの会社名とメールアドレス、請求金額、お支払い期限、手数料の負担、入金先の口座を入力します。",
		}, "collections-create", "カード払い依頼を作成する画面。請求書ファイルのアップロード欄と、手で入力して依頼するリンクがある。", "カード払い依頼の作成"},
		{"依頼を送信する", []string{
			"確認画面で「依頼を送信する」を押すと、お客さまにお支払い用のリンクをメールでお送りします。依頼の状況は「依頼中」「支払確定」「依頼履歴」の一覧で確かめられます。",
		}, "collections-list", "カード払い依頼の一覧画面。送信した依頼がお客さま、金額、状況とともに並んでいる。", "カード払い依頼の一覧"},
	}},
	{"inbox", "請求書受付メールアドレス", "取引先からの請求書を、メールで受け取れます。", []manualStep{
		{"受付アドレスを発行する", []string{
			"「受取請求書」タブの「請求書受付メールアドレス」で「アドレスを発行する」を押すと、自社専用の受付アドレスが表示されます。取引先にこのアドレスへ請求書を添付して送ってもらうと、「新着」の一覧に並びます。",
		}, "inbox-address", "請求書受付メールアドレスの画面。発行された受付アドレスと、受け付けるファイルの説明がある。", "請求書受付メールアドレス"},
	}},
	{"security", "セキュリティ設定（二段階認証）", "ログインのとき、パスワードに加えて確認コードを入力するように設定できます。", []manualStep{
		{"二段階認証の方法を選ぶ", []string{
			"アカウントのメニューから「セキュリティ設定」を開き、「メールで確認コードを受け取る」か「認証アプリを使う」を選んで、現在のパスワードを入力し「設定を変更」を押します。",
		}, "security", "セキュリティ設定の画面。二段階認証の方法として「認証アプリを使う」が選ばれ、現在のパスワードが入力されている。", "セキュリティ設定"},
		{"認証アプリを登録する", []string{
			"「認証アプリを使う」を選んだ場合は、表示されたQRコードをスマートフォンの認証アプリで読み取り、アプリに表示された6桁のコードを入力します。",
		}, "security-totp", "認証アプリの登録画面。QRコードと手入力用のキー、6桁の確認コードの入力欄がある。", "認証アプリの登録"},
		{"リカバリーコードを保管する", []string{
			"登録が終わると、リカバリーコードが10個表示されます。スマートフォンをなくしたときに確認コードの代わりに使えます。この画面でしか表示されないため、印刷するなどして安全な場所に保管してください。",
		}, "security-recovery", "リカバリーコードの画面。10個のリカバリーコードと、保管を促す説明がある。", "リカバリーコード"},
	}},
}

// ManualImages are the names of the manual's pictures under static/ (manual/<name>.jpg):
// the browser suite takes exactly these.
func ManualImages() []string {
	var out []string
	for _, j := range manualJourneys {
		for _, s := range j.steps {
			if s.image != "" {
				out = append(out, manualImagePath(s.image))
			}
		}
	}
	return out
}

func manualImagePath(name string) string { return "manual/" + name + ".jpg" }

// manualView is the page's view without its Base: the pictures' URLs and sizes are
// read once from the embedded files.
var manualView = sync.OnceValue(func() pages.ManualView {
	var v pages.ManualView
	for _, j := range manualJourneys {
		mj := pages.ManualJourney{ID: j.id, Heading: j.heading, Intro: j.intro}
		for i, s := range j.steps {
			ms := pages.ManualStep{Number: i + 1, Heading: s.heading, Text: s.text, Alt: s.alt, Caption: s.caption}
			if s.image != "" {
				ms.Image = static.URL(manualImagePath(s.image))
				if b, err := static.ReadFile(manualImagePath(s.image)); err == nil {
					if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err == nil {
						ms.Width, ms.Height = cfg.Width, cfg.Height
					}
				}
			}
			mj.Steps = append(mj.Steps, ms)
		}
		v.Journeys = append(v.Journeys, mj)
	}
	return v
})

// ShowManualPage shows the manual.
func (h *Handler) ShowManualPage(c *echo.Context) error {
	return web.Show(h.App, c, ManualPage.Title, nil, manualView(), pages.ManualPage)
}
