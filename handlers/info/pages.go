// Package info is the area of the pages around the service: the public help and
// policy pages, the error view, the terms of service with the gate that asks for the
// current version, and /toppage, which sends the buyer on to where they start.
package info

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/views"
	pages "cardpay/views/info"
)

// Handler serves the info pages.
type Handler struct {
	*web.App
}

// infoPage is a public page of help or policy text. Operators usually point the header
// links at their corporate site (see the LINK_* settings); these are the defaults.
type infoPage struct {
	path, title string
	sections    []section
}

// section is one headed part of an info page.
type section struct {
	heading    string
	paragraphs []string
}

// The help and policy pages' paths: the pages (infoPages) and the menus' default links
// (DefaultLinks) both name them.
const (
	ManualPath          = "/help/manual"
	FAQPath             = "/help/faq"
	InquiryPath         = links.Inquiry // the form is handlers/inquiries'; only the menus' link is here
	PolicyTermsPath     = "/terms"
	PrivacyPath         = "/privacy"
	PersonalInfoPath    = "/privacy/personal-information"
	SupplierServicePath = "/supplier-service"
)

// DefaultLinks point the help and policy menus at the built-in pages.
var DefaultLinks = views.Links{
	Manual:          ManualPath,
	FAQ:             FAQPath,
	Inquiry:         InquiryPath,
	Terms:           PolicyTermsPath,
	Privacy:         PrivacyPath,
	PersonalInfo:    PersonalInfoPath,
	SupplierService: SupplierServicePath,
}

var infoPages = []infoPage{
	{ManualPath, "操作マニュアル", []section{
		{"請求書をカードで支払う", []string{
			"「請求書カード払い」タブから請求書をアップロードし、取引先と振込先口座を選んで、登録済みのクレジットカードでお支払いください。",
			"審査が完了すると、ご指定の振込日に取引先へ銀行振込でお支払いします。",
		}},
		{"取引先を登録する", []string{"「登録取引先」タブから、取引先の会社情報と振込先口座を登録できます。"}},
		{"カード払いを依頼する（法人のお客さま）", []string{"「カード払い依頼」タブから、お客さまへクレジットカードでの支払いを依頼できます。"}},
	}},
	{FAQPath, "よくあるご質問", []section{
		{"利用できるカードは？", []string{"JCB、VISA、Mastercard のクレジットカードをご利用いただけます。"}},
		{"手数料はいくらですか？", []string{"お支払い金額の3.0%です（1円未満切り捨て）。お支払いの確定前に金額をご確認いただけます。"}},
		{"振込日はいつですか？", []string{"お申し込みから3営業日以降で、請求書の支払期日までの銀行営業日を指定できます。"}},
	}},
	{PolicyTermsPath, "利用規約", []section{
		{"", []string{"本規約は、本サービスの利用条件を定めるものです。ご利用の前に必ずお読みください。利用規約の全文は、ログイン後の「利用規約」画面でご確認いただけます。"}},
	}},
	{PrivacyPath, "プライバシーポリシー", []section{
		{"", []string{"当社は、お客さまの個人情報を適切に取り扱い、保護することを社会的責務と考え、個人情報の保護に関する法律その他の関係法令を遵守します。"}},
	}},
	{PersonalInfoPath, "個人情報の取り扱いについて", []section{
		{"利用目的", []string{"お預かりした個人情報は、本サービスの提供、本人確認、お支払いの審査と振込、お問い合わせへの回答のために利用します。"}},
		{"カード情報", []string{"クレジットカード番号とセキュリティコードは、当社のサーバーを経由せず決済代行会社に直接送信され、当社では保存しません。"}},
	}},
	{SupplierServicePath, "取引先向けサービス", []section{
		{"", []string{"請求書をお送りいただく取引先さまは、お支払いを銀行振込で受け取れます。カード払いの依頼を受けた場合の手続きもこちらでご案内します。"}},
		{"請求書をお送りいただく方法", []string{
			"お客さま（本サービスをご利用の事業者）から「請求書アップロードのご案内」メールが届いた場合は、メールのリンクを開き、請求書のファイル（パスワードのない PDF、JPEG、PNG、10MBまで）を1件ずつお送りください。アカウントの登録は不要です。お送りいただいた請求書は、そのお客さまだけに届きます。",
			"リンクには有効期限があり、お客さまが新しいリンクを送ったり無効にしたりすると使えなくなります。その場合は、お客さまに新しいリンクをお問い合わせください。",
			"お客さまの「請求書受付メールアドレス」に、請求書を添付したメールをお送りいただくこともできます。ZIP などに圧縮せず、ファイルをそのまま添付してください（1通に10ファイルまで）。受け付けられなかったファイルは、理由をメールでお知らせします。",
		}},
	}},
}

// Pages are the public help and policy pages, in the order of infoPages.
var Pages = func() []web.Page {
	ps := make([]web.Page, len(infoPages))
	for i, p := range infoPages {
		ps[i] = web.Page{Path: p.path, Title: p.title, Access: web.Public}
	}
	return ps
}()

// ShowInfoPage serves p, one of Pages, with its sections.
func (h *Handler) ShowInfoPage(p web.Page) echo.HandlerFunc {
	var sections []pages.InfoSection
	for _, ip := range infoPages {
		if ip.path == p.Path {
			for _, s := range ip.sections {
				sections = append(sections, pages.InfoSection{Heading: s.heading, Paragraphs: s.paragraphs})
			}
		}
	}
	return func(c *echo.Context) error {
		b, err := h.Base(c, p.Title)
		if err != nil {
			return err
		}
		return web.Render(c, http.StatusOK, pages.InfoPage(pages.InfoView{Base: b, Sections: sections}))
	}
}
