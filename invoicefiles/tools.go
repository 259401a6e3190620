package invoicefiles

import (
	"context"
	"sync"
	"time"
)

// ToolCheck says whether the OCR tools are installed (ocr.Reader.Available): nil when
// uploaded invoices can be read, else what is missing.
type ToolCheck interface {
	Available(ctx context.Context) error
}

// toolCheckEvery is how long an answer of the tool check stands: long enough that the
// upload page does not run tesseract on every view, short enough that tools installed
// while the server runs are seen within a minute.
const toolCheckEvery = time.Minute

// readingCheck remembers the tool check's last answer.
type readingCheck struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// ReadingUnavailable says why uploaded invoices cannot be read now (the OCR tools are
// missing), or nil when they can or no ToolCheck is set. The upload page says so before
// the buyer uploads, rather than after.
func (s *Service) ReadingUnavailable(ctx context.Context) error {
	if s.Tools == nil {
		return nil
	}
	s.check.mu.Lock()
	defer s.check.mu.Unlock()
	if now := s.now(); s.check.at.IsZero() || now.Sub(s.check.at) >= toolCheckEvery || now.Before(s.check.at) {
		s.check.err, s.check.at = s.Tools.Available(ctx), now
	}
	return s.check.err
}
