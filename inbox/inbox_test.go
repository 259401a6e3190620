package inbox_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"mime"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/files"
	"cardpay/inbox"
	"cardpay/invoicefiles"
	"cardpay/jobs"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

const (
	domain     = "in.test.example"
	authservID = "mx.test.example"
)

// rig is the inbound listener as the server runs it: the inbox service over the real
// store and file storage, its replies and notifications mailed by the account
// service's jobs to a real SMTP server (box).
type rig struct {
	addr string // the listener's host:port
	box  *mailtest.Server
	svc  *inbox.Service
}

func newRig(t *testing.T, maxPerHour int, maxBytes int64) rig {
	t.Helper()
	box := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(box.URL(), "no-reply@test.example")
	require.NoError(t, err)
	acct := &account.Service{Store: db.Store, Mail: sender, Sealer: auth.NewSealer("k"), ServiceName: "請求書カード払い", BaseURL: "http://app.test"}
	r := &jobs.Runner{Store: db.Store, Workers: 2, PollInterval: 20 * time.Millisecond, BaseBackoff: 50 * time.Millisecond}
	r.Register(account.MailJobKind, acct.DeliverMail)
	r.Start(context.Background())
	t.Cleanup(r.Stop)
	svc := &inbox.Service{
		Store: db.Store, Files: &invoicefiles.Service{Store: db.Store, Files: &files.Local{Dir: t.TempDir()}},
		Mailer: acct, Domain: domain, AuthservID: authservID, MaxPerHour: maxPerHour,
	}
	srv, err := mail.StartInbound(mail.InboundOptions{Addr: "127.0.0.1:0", Domain: domain, MaxMessageBytes: maxBytes}, svc)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return rig{addr: srv.Addr(), box: box, svc: svc}
}

var buyerSeq int

func newBuyer(t *testing.T) (store.User, string) {
	t.Helper()
	buyerSeq++
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "受信商事株式会社", EmailAddress: fmt.Sprintf("buyer%d@inbox-test.example", buyerSeq),
		PasswordHash: "x", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	a, err := db.Store.RenewReceivingAddress(context.Background(), u.BuyerID, u.ID, time.Now())
	require.NoError(t, err)
	return u, a.LocalPart + "@" + domain
}

// part is one attachment of a test mail.
type part struct {
	name, contentType string
	body              []byte
	header            string // extra header lines of the part
}

// message builds a multipart mail as a mailer would: a text body, then each part in
// base64; authResults are the Authentication-Results headers, the MTA's on top.
func message(from, subject string, authResults []string, parts ...part) []byte {
	var b bytes.Buffer
	for _, ar := range authResults {
		fmt.Fprintf(&b, "Authentication-Results: %s\r\n", ar)
	}
	fmt.Fprintf(&b, "From: %s\r\nTo: inbox\r\nSubject: %s\r\nMessage-ID: <%s.p%d@sender.example>\r\nMIME-Version: 1.0\r\n",
		from, mime.BEncoding.Encode("UTF-8", subject), rand.Text(), len(parts))
	b.WriteString("Content-Type: multipart/mixed; boundary=\"BOUNDARY\"\r\n\r\n")
	b.WriteString("--BOUNDARY\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	b.WriteString(base64.StdEncoding.EncodeToString([]byte("いつもお世話になっております。請求書をお送りします。")) + "\r\n")
	for _, p := range parts {
		b.WriteString("--BOUNDARY\r\n")
		fmt.Fprintf(&b, "Content-Type: %s; name=\"%s\"\r\n", p.contentType, p.name)
		if p.header != "" {
			b.WriteString(p.header + "\r\n")
		} else {
			fmt.Fprintf(&b, "Content-Disposition: attachment; filename=\"%s\"\r\n", p.name)
		}
		b.WriteString("Content-Transfer-Encoding: base64\r\n\r\n")
		enc := base64.StdEncoding.EncodeToString(p.body)
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\r\n")
	}
	b.WriteString("--BOUNDARY--\r\n")
	return b.Bytes()
}

// send speaks SMTP to the listener: the error is the listener's refusal, if any.
func send(t *testing.T, addr, envelopeFrom, to string, raw []byte) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	return c.SendMail(envelopeFrom, []string{to}, bytes.NewReader(raw))
}

func invoicePDF(t *testing.T) []byte {
	t.Helper()
	b, err := invoicegen.RenderPDF(invoicegen.New(29).Invoice(), invoicegen.LayoutClassic)
	require.NoError(t, err, "needs the font from the ocr-tools task")
	return b
}

func pngFile(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 120, 80))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func encrypted(t *testing.T, pdf []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, api.Encrypt(bytes.NewReader(pdf), &out, model.NewAESConfiguration("pw", "owner", 256)))
	return out.Bytes()
}

func received(t *testing.T, buyerID int64) []store.ReceivedInvoice {
	t.Helper()
	list, _, err := db.Store.ReceivedInvoices(context.Background(), store.ReceivedFilter{BuyerID: buyerID, Size: 100})
	require.NoError(t, err)
	return list
}

func mails(t *testing.T, buyerID int64) []store.InboundMail {
	t.Helper()
	list, err := db.Store.InboundMails(context.Background(), buyerID, 100)
	require.NoError(t, err)
	return list
}

// settle waits until every mail job enqueued so far ran, so that a test can say what
// was not mailed.
func settle(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		n, err := db.Store.PendingJobs(context.Background(), account.MailJobKind)
		return err == nil && n == 0
	}, 10*time.Second, 10*time.Millisecond)
}

func pass(dmarc string) []string {
	return []string{authservID + "; spf=pass smtp.mailfrom=supplier.example; dkim=pass header.d=supplier.example; dmarc=" + dmarc + " header.from=supplier.example"}
}

// Good files arrive as received invoices of the address's buyer only, with the sender,
// the decoded subject and the trusted verdicts; a logo in the signature is not an
// invoice; the first mail from a sender is marked new, the next is not; the buyer is
// notified; a mail delivered twice is taken once; nothing is mailed back.
func TestGoodMailBecomesReceivedInvoices(t *testing.T) {
	rg := newRig(t, 0, pay.MaxInboundMailBytes)
	u, to := newBuyer(t)
	other, _ := newBuyer(t)
	pdf, scan := invoicePDF(t), pngFile(t)

	// A header the sender wrote itself claims a pass under another id: ignored.
	forgedAR := "evil.example; spf=pass; dkim=pass; dmarc=pass"
	raw := message("経理部 <Keiri@Supplier.example>", "11月分 請求書送付のご案内", append(pass("pass"), forgedAR),
		part{name: "=?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte("請求書_11月.pdf")) + "?=", contentType: "application/pdf", body: pdf},
		part{name: "scan.png", contentType: "image/png", body: scan},
		part{name: "logo.png", contentType: "image/png", body: scan, header: "Content-Disposition: inline\r\nContent-ID: <logo@sender>"},
	)
	require.NoError(t, send(t, rg.addr, "bounce@supplier.example", to, raw))

	list := received(t, u.BuyerID)
	require.Len(t, list, 2, "the PDF and the scan; not the signature's logo")
	names := []string{list[0].OriginalName, list[1].OriginalName}
	assert.ElementsMatch(t, []string{"請求書_11月.pdf", "scan.png"}, names)
	for _, r := range list {
		assert.Equal(t, store.ReceivedByMail, r.Source)
		assert.Equal(t, "経理部 <keiri@supplier.example>", r.Sender)
		assert.Equal(t, "11月分 請求書送付のご案内", r.Subject)
		assert.Equal(t, []string{"pass", "pass", "pass"}, []string{r.AuthSPF, r.AuthDKIM, r.AuthDMARC})
		assert.True(t, r.NewSender, "the first mail from this sender")
		assert.Equal(t, pay.ReceivedNew, r.State)
	}
	assert.Empty(t, received(t, other.BuyerID), "another buyer sees nothing")

	log := mails(t, u.BuyerID)
	require.Len(t, log, 1)
	assert.Equal(t, "accepted", log[0].Outcome)
	assert.Equal(t, 2, log[0].Accepted)
	assert.False(t, log[0].Bounced)
	notes, err := db.Store.NotificationPage(context.Background(), u.BuyerID, 0, 10)
	require.NoError(t, err)
	require.NotEmpty(t, notes.Items)
	assert.Contains(t, notes.Items[0].Body, "請求書が2件届きました")

	// Delivered again (the MTA lost our reply): taken once.
	require.NoError(t, send(t, rg.addr, "bounce@supplier.example", to, raw))
	assert.Len(t, received(t, u.BuyerID), 2)

	// The same sender again: no longer new. Without a trusted verdict: none.
	require.NoError(t, send(t, rg.addr, "bounce@supplier.example", to,
		message("keiri@supplier.example", "12月分", []string{forgedAR}, part{name: "dec.pdf", contentType: "application/pdf", body: pdf})))
	list = received(t, u.BuyerID)
	require.Len(t, list, 3)
	assert.False(t, list[0].NewSender)
	assert.Equal(t, []string{"none", "none", "none"}, []string{list[0].AuthSPF, list[0].AuthDKIM, list[0].AuthDMARC})

	settle(t)
	assert.Empty(t, rg.box.Messages(), "nothing refused, nothing mailed back")
	fmt.Printf("inbox: 3 mails → %d received invoices, %d logged, 0 replies\n", len(list), len(mails(t, u.BuyerID)))
}

// Refused files are named in a Japanese reply to the sender: an encrypted PDF beside a
// good one (the good one is taken), a ZIP, a mail without a file, too many files.
func TestRefusedFilesAreToldToTheSender(t *testing.T) {
	rg := newRig(t, 0, pay.MaxInboundMailBytes)
	u, to := newBuyer(t)
	pdf := invoicePDF(t)

	cases := []struct {
		name     string
		from     string
		parts    []part
		accepted int
		reply    []string
	}{
		{"an encrypted PDF beside a good one", "a@supplier.example", []part{
			{name: "locked.pdf", contentType: "application/pdf", body: encrypted(t, pdf)},
			{name: "ok.pdf", contentType: "application/pdf", body: pdf},
		}, 1, []string{"locked.pdf", "保護された PDF", "ほかの1件のファイルは受け付けました"}},
		{"a ZIP (PPAP)", "b@supplier.example", []part{
			{name: "請求書.zip", contentType: "application/zip", body: append([]byte("PK\x03\x04"), bytes.Repeat([]byte{1}, 64)...)},
		}, 0, []string{"請求書.zip", "ZIP などの圧縮ファイル"}},
		{"no file", "c@supplier.example", nil, 0, []string{"メール全体", "添付されていませんでした"}},
		{"eleven files", "d@supplier.example", func() []part {
			var ps []part
			for i := range pay.MaxInboundAttachments + 1 {
				ps = append(ps, part{name: fmt.Sprintf("p%d.pdf", i), contentType: "application/pdf", body: pdf})
			}
			return ps
		}(), 0, []string{"添付ファイルが11個あります"}},
	}
	before := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, send(t, rg.addr, tc.from, to, message(tc.from, "請求書", pass("pass"), tc.parts...)),
				"taken at SMTP: what was refused is told by the reply")
			got := rg.box.WaitFor(t, tc.from, 10*time.Second)
			assert.Contains(t, got.Subject, "受け付けられませんでした")
			for _, want := range tc.reply {
				assert.Contains(t, got.Text, want)
			}
			assert.Len(t, received(t, u.BuyerID), before+tc.accepted)
			before += tc.accepted
			log := mails(t, u.BuyerID)
			assert.True(t, log[0].Bounced)
			if tc.accepted > 0 {
				assert.Equal(t, "partly", log[0].Outcome)
			} else {
				assert.Equal(t, "refused", log[0].Outcome)
			}
			fmt.Printf("inbox: %s → %d taken, reply %q\n", tc.name, tc.accepted, got.Subject)
		})
	}
}

// What is refused in the SMTP reply, so that the sender's own server bounces it: a
// forged sender (DMARC failed; nothing stored, nothing mailed to the address the
// forger chose), an unknown or retired address, a mail over the size, and the hourly
// limit (a temporary refusal). A program's mail that is refused gets no reply.
func TestRefusedInTheSMTPReply(t *testing.T) {
	rg := newRig(t, 3, 1<<20)
	u, to := newBuyer(t)
	pdf := invoicePDF(t)
	good := func(from string) []byte {
		return message(from, "請求書", pass("pass"), part{name: "a.pdf", contentType: "application/pdf", body: pdf})
	}

	err := send(t, rg.addr, "victim@example.com", to, message("ceo@supplier.example", "至急お振込みください", pass("fail"),
		part{name: "a.pdf", contentType: "application/pdf", body: pdf}))
	requireCode(t, err, 550, "DMARC")
	assert.Empty(t, received(t, u.BuyerID))
	log := mails(t, u.BuyerID)
	require.Len(t, log, 1)
	assert.Equal(t, "refused", log[0].Outcome)
	assert.Contains(t, log[0].Refusals()[0].Reason, "なりすまし")

	requireCode(t, send(t, rg.addr, "a@supplier.example", "nobody@"+domain, good("a@supplier.example")), 550, "No such")
	requireCode(t, send(t, rg.addr, "a@supplier.example", strings.Split(to, "@")[0]+"@other.example", good("a@supplier.example")), 550, "No such")

	big := message("a@supplier.example", "大きい", pass("pass"), part{name: "big.pdf", contentType: "application/pdf", body: bytes.Repeat(pdf, 1+(1<<20)/len(pdf))})
	requireCode(t, send(t, rg.addr, "a@supplier.example", to, big), 552, "")

	auto := message("mailer-daemon@supplier.example", "自動送信", pass("pass"))
	auto = append([]byte("Auto-Submitted: auto-generated\r\n"), auto...)
	require.NoError(t, send(t, rg.addr, "mailer-daemon@supplier.example", to, auto))
	require.NoError(t, send(t, rg.addr, "", to, message("postmaster@supplier.example", "Undelivered", pass("pass"))))
	// The limit (3 an hour here) counts every mail the address took: the forged one and
	// the two without files.
	requireCode(t, send(t, rg.addr, "a@supplier.example", to, good("a@supplier.example")), 450, "Too many")

	// Renewed: the old address receives nothing.
	_, err = db.Store.RenewReceivingAddress(context.Background(), u.BuyerID, u.ID, time.Now())
	require.NoError(t, err)
	requireCode(t, send(t, rg.addr, "a@supplier.example", to, good("a@supplier.example")), 550, "No such")

	settle(t)
	assert.Empty(t, rg.box.Messages(), "no reply to a forged sender, a program or a bounce")
	assert.Empty(t, received(t, u.BuyerID))
}

func requireCode(t *testing.T, err error, code int, text string) {
	t.Helper()
	var se *smtp.SMTPError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, code, se.Code, se.Message)
	assert.Contains(t, se.Message, text)
	fmt.Printf("inbox: refused %d %s\n", se.Code, se.Message)
}
