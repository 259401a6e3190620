package mail_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/pay"
)

const service = "請求書カード払い"

// 2026-12-25 00:05 UTC is 09:05 in Japan.
var at = time.Date(2026, 12, 25, 0, 5, 0, 0, time.UTC)

func TestTemplates(t *testing.T) {
	tests := []struct {
		name    string
		msg     mail.Message
		to      string
		subject string
		code    string // "" for notices
		want    []string
	}{
		{"signup", mail.SignupCode("new@example.jp", service, "123456", 10*time.Minute), "new@example.jp",
			"【請求書カード払い】新規登録の認証コード", "123456",
			[]string{"このコードの有効期限は10分です。", "お申し込みをいただき"}},
		{"already registered", mail.AlreadyRegistered("user@example.jp", service), "user@example.jp",
			"【請求書カード払い】新規登録のお申し込みについて", "",
			[]string{"既に登録されている", "パスワードをお忘れの方"}},
		{"e-mail in use", mail.EmailInUse("user@example.jp", service), "user@example.jp",
			"【請求書カード払い】メールアドレス変更のお申し込みについて", "",
			[]string{"既に請求書カード払いに登録されている", "確認コードはお送りしていません"}},
		{"sign-in", mail.SignInCode("user@example.jp", service, "654321", 5*time.Minute), "user@example.jp",
			"【請求書カード払い】ログイン用の認証コード", "654321",
			[]string{"このコードの有効期限は5分です。", "いつもご利用いただきありがとうございます。", "ワンタイムパスワード"}},
		{"step-up", mail.StepUpCode("user@example.jp", service, "246801", 10*time.Minute), "user@example.jp",
			"【請求書カード払い】振込先口座の登録・変更の確認コード", "246801",
			[]string{"このコードの有効期限は10分です。", "口座は登録・変更されません。"}},
		{"password reset", mail.PasswordResetCode("user@example.jp", service, "000123", 30*time.Minute), "user@example.jp",
			"【請求書カード払い】パスワード再設定の認証コード", "000123",
			[]string{"このコードの有効期限は30分です。", "いつもご利用いただきありがとうございます。"}},
		{"e-mail change", mail.EmailChangeCode("next@example.jp", service, "987654", 90*time.Second), "next@example.jp",
			"【請求書カード払い】メールアドレス変更の認証コード", "987654",
			[]string{"このコードの有効期限は2分です。", "いつもご利用いただきありがとうございます。"}},
		{"password changed", mail.PasswordChanged("user@example.jp", service, at), "user@example.jp",
			"【請求書カード払い】パスワード変更のお知らせ", "",
			[]string{"変更日時：2026年12月25日 09:05", "心当たりがない場合は、", "いつもご利用いただきありがとうございます。"}},
		{"e-mail changed", mail.EmailChanged("old@example.jp", "new@example.jp", service, at), "old@example.jp",
			"【請求書カード払い】メールアドレス変更のお知らせ", "",
			[]string{"変更日時：2026年12月25日 09:05", "変更前：old@example.jp", "変更後：new@example.jp", "心当たりがない場合は、"}},
		{"account locked", mail.AccountLocked("user@example.jp", service, at.Add(30*time.Minute), "https://cardpay.example/password/sendemail"), "user@example.jp",
			"【請求書カード払い】アカウントの一時ロックのお知らせ", "",
			[]string{"ロック解除日時：2026年12月25日 09:35", "いつもお使いの端末からは、引き続きログインできます", "https://cardpay.example/password/sendemail", "心当たりがない場合は、"}},
		{"card-payment request", mail.CardPaymentRequest("keiri@customer.example", service, pay.RequestMailFacts{
			RequesterName: "株式会社依頼元", RequesterCorporateNumber: "1180301018771", CustomerName: "株式会社お客さま",
			CustomerContactName: "経理ご担当", Amount: 206000, Deadline: time.Date(2026, 12, 10, 0, 0, 0, 0, pay.Tokyo()),
			InvoiceNumber: "REQ-1", Message: "よろしくお願いします", Link: "https://pay.example.jp/request/KEY"}), "keiri@customer.example",
			"【請求書カード払い】株式会社依頼元からカード払いのご依頼が届いています", "",
			[]string{"株式会社お客さま\n経理ご担当 様", "株式会社依頼元（法人番号 1180301018771）", "ご請求金額（カードでのお支払い額）：¥206,000",
				"お支払い期限：2026年12月10日", "請求書番号：REQ-1", "よろしくお願いします", "\nhttps://pay.example.jp/request/KEY\n", "一度だけ"}},
		{"card-payment request, no contact, no message", mail.CardPaymentRequest("keiri@customer.example", service, pay.RequestMailFacts{
			RequesterName: "株式会社依頼元", RequesterCorporateNumber: "1180301018771", CustomerName: "株式会社お客さま",
			Amount: 5000, Deadline: time.Date(2026, 12, 10, 0, 0, 0, 0, pay.Tokyo()), Link: "https://pay.example.jp/request/KEY"}),
			"keiri@customer.example", "【請求書カード払い】株式会社依頼元からカード払いのご依頼が届いています", "",
			[]string{"株式会社お客さま 御中", "¥5,000"}},
		{"operator invitation", mail.OperatorInvite("new@ops.example", service, "新人 審査", "https://cardpay.example/ops/invite/TOKEN",
			time.Date(2026, 12, 25, 0, 35, 0, 0, time.UTC)), "new@ops.example", "【請求書カード払い】運用コンソールへの招待", "",
			[]string{"新人 審査 様", "\nhttps://cardpay.example/ops/invite/TOKEN\n", "一度だけ", "有効期限：2026年12月25日 09:35", "だれにも伝えないでください"}},
		{"inquiry received, public", mail.InquiryReceived("hanako@example.jp", service, "Q-00000012", "", "カード", "", time.Date(2026, 12, 1, 1, 5, 0, 0, time.UTC)),
			"hanako@example.jp", "【請求書カード払い】お問い合わせを受け付けました（Q-00000012）", "",
			[]string{"お問い合わせいただいたお客さま", "お問い合わせ番号：Q-00000012", "お問い合わせの種類：カード", "受付日時：2026年12月1日 10:05"}},
		{"inquiry received, signed in", mail.InquiryReceived("taro@example.jp", service, "Q-00000013", "山田 太郎", "その他", "一行目\n二行目",
			time.Date(2026, 12, 1, 1, 5, 0, 0, time.UTC)), "taro@example.jp", "【請求書カード払い】お問い合わせを受け付けました（Q-00000013）", "",
			[]string{"山田 太郎 様", "お問い合わせ内容：\n一行目\n二行目\n"}},
		{"inquiry answered", mail.InquiryAnswered("taro@example.jp", service, "Q-00000013", "山田 太郎", "その他", "質問", "回答です",
			"https://cardpay.example/inquiries/13"), "taro@example.jp", "【請求書カード払い】お問い合わせへの回答（Q-00000013）", "",
			[]string{"山田 太郎 様", "\n回答です\n", "お問い合わせ内容：\n質問\n", "\nhttps://cardpay.example/inquiries/13\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.msg
			assert.Equal(t, tt.to, m.To)
			assert.Equal(t, tt.subject, m.Subject)
			assert.True(t, strings.HasPrefix(m.Subject, "【"+service+"】"))
			for _, w := range tt.want {
				assert.Contains(t, m.Text, w)
			}
			assert.Contains(t, m.Text, "このメールは送信専用のアドレスから自動で送信しています。", "the automatic-mail footer")
			assert.True(t, strings.HasSuffix(m.Text, "――――――――――――――――――――\n"+service+"\n――――――――――――――――――――"), "the signature closes the mail")
			for _, leftover := range []string{"{{", "}}", "<no value>", "%!"} {
				assert.NotContains(t, m.Text+m.Subject, leftover)
			}
			assert.NotContains(t, m.Text, "\n\n\n", "no runs of empty lines")
			assert.Equal(t, strings.TrimSpace(m.Text), m.Text)
			if tt.code != "" {
				assert.Contains(t, strings.Split(m.Text, "\n"), tt.code, "the code stands on a line of its own")
				assert.Equal(t, tt.code, mailtest.Code(m.Text))
			} else {
				assert.Empty(t, mailtest.Code(m.Text), "notices carry no code")
			}
		})
	}
}

func TestTemplatesUseTheServiceName(t *testing.T) {
	m := mail.SignInCode("user@example.jp", "テスト決済", "111111", time.Minute)
	assert.Equal(t, "【テスト決済】ログイン用の認証コード", m.Subject)
	assert.Contains(t, m.Text, "\nテスト決済\n")
	assert.NotContains(t, m.Text, service)
}

func TestCode(t *testing.T) {
	assert.Equal(t, "123456", mailtest.Code("認証コード：\n\n123456\n\n有効期限は10分です。"))
	assert.Equal(t, "123456", mailtest.Code("コード\r\n  123456 \r\n"))
	assert.Equal(t, "", mailtest.Code("注文番号 1234567 と 123456 は同じ行です"))
	assert.Equal(t, "", mailtest.Code("2026年12月25日 09:05"))
}
