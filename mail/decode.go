package mail

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
)

// maxParts bounds the multipart parts looked at, so that a crafted message cannot make
// the receiving server walk without end.
const maxParts = 50

// Decode reads a raw RFC 5322 message into a Received: From and To as readable
// addresses ("請求書カード払い <no-reply@example.jp>"), the RFC 2047 subject decoded, and
// the text of the first text/plain part with its quoted-printable or base64 transfer
// encoding undone and line ends normalised to "\n". ID and ReceivedAt are left for
// the receiver to fill. Only UTF-8 and US-ASCII text is decoded: bytes of other
// charsets that are not valid UTF-8 show as U+FFFD.
func Decode(raw []byte) (Received, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Received{}, fmt.Errorf("mail: decode headers: %w", err)
	}
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		subject = msg.Header.Get("Subject")
	}
	text, err := bodyText(msg.Header, msg.Body, 0)
	if err != nil {
		return Received{}, fmt.Errorf("mail: decode body: %w", err)
	}
	return Received{
		From:    clean(addresses(msg.Header, "From")),
		To:      clean(addresses(msg.Header, "To")),
		Subject: clean(subject),
		Text:    clean(normalise(text)),
	}, nil
}

// header is what the body decoder reads of a message's or a part's header.
type header interface{ Get(string) string }

func bodyText(h header, body io.Reader, depth int) (string, error) {
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		// RFC 2045: no (or a broken) Content-Type means US-ASCII plain text.
		mediaType, params = "text/plain", map[string]string{}
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		if depth > 5 || params["boundary"] == "" {
			return "", errors.New("unreadable multipart message")
		}
		return firstText(multipart.NewReader(body, params["boundary"]), depth)
	}
	b, err := io.ReadAll(transferDecoder(h.Get("Content-Transfer-Encoding"), body))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// firstText prefers the first text/plain part, else the first text part of any kind.
func firstText(mr *multipart.Reader, depth int) (string, error) {
	fallback, found := "", false
	for range maxParts {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		mediaType, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if mediaType == "" {
			mediaType = "text/plain"
		}
		switch {
		case strings.HasPrefix(mediaType, "multipart/"):
			t, err := bodyText(p.Header, p, depth+1)
			if err == nil && t != "" {
				return t, nil
			}
		case mediaType == "text/plain":
			return bodyText(p.Header, p, depth+1)
		case strings.HasPrefix(mediaType, "text/") && !found:
			if t, err := bodyText(p.Header, p, depth+1); err == nil {
				fallback, found = t, true
			}
		}
	}
	return fallback, nil
}

func transferDecoder(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	case "base64":
		// The decoder skips the line breaks between base64 lines.
		return base64.NewDecoder(base64.StdEncoding, r)
	default:
		return r
	}
}

// addresses shows each address of a header as "name <address>", or just the address;
// a header that does not parse is shown as it came.
func addresses(h netmail.Header, key string) string {
	v := h.Get(key)
	list, err := h.AddressList(key)
	if err != nil {
		var dec mime.WordDecoder
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		if a.Name != "" {
			out = append(out, a.Name+" <"+a.Address+">")
		} else {
			out = append(out, a.Address)
		}
	}
	return strings.Join(out, ", ")
}

// clean makes text storable and showable whatever arrived: invalid UTF-8 (a charset
// we do not decode) becomes U+FFFD, and NUL, which PostgreSQL text refuses, goes.
func clean(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// normalise turns CRLF into LF and drops the line break the SMTP transport adds at the
// end, so that the text reads exactly as it was written.
func normalise(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimRight(s, "\n")
}
