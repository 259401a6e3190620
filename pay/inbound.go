package pay

import "fmt"

// Limits of a buyer's receiving address (issue 29). A mail over the size is refused by
// the listener before it is stored; the others are told to the sender.
const (
	// MaxInboundMailBytes: ten files of MaxInvoiceFileBytes would not fit, two or three
	// (base64 makes each a third larger) with the text do; most mail servers stop at
	// 25–30 MB themselves.
	MaxInboundMailBytes = 30 << 20
	// MaxInboundAttachments is how many files one mail may carry.
	MaxInboundAttachments = 10
	// MaxInboundMailsPerHour is how many mails one address takes an hour; more are
	// deferred (the sender's server tries again later), so a flood of mail cannot fill
	// a buyer's inbox.
	MaxInboundMailsPerHour = 30
)

// What a receiving address refuses, in Japanese for the buyer's log and the reply.
const (
	msgInboundForged         = "送信元ドメインの認証（DMARC）に失敗しました。なりすましの可能性があるため受け付けていません。"
	msgInboundNoAttachment   = "請求書のファイル（PDF、JPEG、PNG）が添付されていませんでした。"
	msgInboundTooManyFiles   = "添付ファイルが%d個あります。1通のメールに添付できるのは%d個までです。メールを分けてお送りください。"
	msgInboundUnreadableMail = "メールの形式を読み取れませんでした。"
)

// InboundRefusal is why a whole mail is not taken. SMTP says so to the sending server
// (Code, Enhanced and the ASCII Reason, which its bounce quotes) when the mail is not to
// be taken at all; the buyer's log shows Message.
type InboundRefusal struct {
	SMTP     bool // refused in the SMTP reply; otherwise taken, logged and answered by mail
	Code     int
	Enhanced [3]int
	Reason   string
	Message  string
}

// InboundForged refuses a mail whose sender's domain failed DMARC (the domain's owner
// says mail failing it is not theirs): in the SMTP reply, so that no reply goes to an
// address a forger chose.
var InboundForged = InboundRefusal{SMTP: true, Code: 550, Enhanced: [3]int{5, 7, 1},
	Reason: "The sender's domain failed DMARC: not accepted", Message: msgInboundForged}

// InboundUnreadable refuses a mail that is not a readable message.
var InboundUnreadable = InboundRefusal{SMTP: true, Code: 550, Enhanced: [3]int{5, 6, 0},
	Reason: "The message could not be read", Message: msgInboundUnreadableMail}

// CheckInboundMail decides about a mail as a whole from the receiving MTA's DMARC
// verdict (pass, fail, none) and how many files it carries: nil when its files are
// each to be checked as an upload's (CheckInvoiceFile).
func CheckInboundMail(dmarc string, attachments int) *InboundRefusal {
	switch {
	case dmarc == "fail":
		r := InboundForged
		return &r
	case attachments == 0:
		return &InboundRefusal{Message: msgInboundNoAttachment}
	case attachments > MaxInboundAttachments:
		return &InboundRefusal{Message: fmt.Sprintf(msgInboundTooManyFiles, attachments, MaxInboundAttachments)}
	}
	return nil
}

// InboundMayReply says whether a refusal may be told to a mail's sender by an automatic
// reply (RFC 3834): not to a bounce (no return path), not to a program's mail
// (Auto-Submitted), and not where SPF or DMARC found the return path or the sender
// forged, so that a forger cannot make us mail someone else.
func InboundMayReply(envelopeFrom string, autoSubmitted bool, spf, dmarc string) bool {
	return envelopeFrom != "" && !autoSubmitted && spf != "fail" && dmarc != "fail"
}
