package web

import (
	"sync"

	"github.com/labstack/echo/v5"
)

// Uploads at once (issue 24). An upload holds its file in memory (up to 10 MB), and an
// image is decoded to check it (up to pay.MaxImageDecodeBytes): without a bound, a buyer
// with a script, or many at once, could take an instance's memory and CPU.
const (
	// MaxUploadsPerBuyer is how many uploads one buyer may have running at once: a person
	// sends one file at a time, and a client sending a month's invoices in parallel does
	// not need more than a few to go as fast as the checks allow.
	MaxUploadsPerBuyer = 3
	// MaxUploadsPerInstance is how many uploads one instance runs at once, all buyers
	// together: with 2 cores the checks gain nothing from more, and 8 × (10 MB + 256 MiB
	// of decoding at worst) stays within a small instance's memory.
	MaxUploadsPerInstance = 8
	// uploadRetryAfter is the Retry-After of a refused upload, in seconds: an upload's
	// checks take a second or two.
	uploadRetryAfter = 5
)

// Refusals of an upload over the limits, next to the file field.
const (
	MsgUploadsPerBuyer = "同時にアップロードできるのは3件までです。しばらくしてからもう一度お試しください。"
	MsgUploadsBusy     = "ただいまアップロードが混み合っています。しばらくしてからもう一度お試しください。"
)

// uploadSlots counts the uploads running on this instance, in all and per buyer.
type uploadSlots struct {
	mu       sync.Mutex
	total    int
	perBuyer map[int64]int
}

// UploadSlot takes one of this instance's upload slots for buyerID, without waiting: the
// upload must call release when done. Over a limit nothing is taken, the page or call
// answers 429 with Retry-After, and msg is the refusal for the file field; the upload
// must then read and store nothing.
func (a *App) UploadSlot(c *echo.Context, buyerID int64) (release func(), msg string) {
	s := &a.uploads
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.perBuyer[buyerID] >= MaxUploadsPerBuyer:
		msg = MsgUploadsPerBuyer
	case s.total >= MaxUploadsPerInstance:
		msg = MsgUploadsBusy
	}
	if msg != "" {
		TooMany(c, uploadRetryAfter)
		// Nothing of the body is read: without this, Go's server would read up to 256 KB
		// of it before answering, to keep the connection.
		c.Response().Header().Set("Connection", "close")
		return func() {}, msg
	}
	if s.perBuyer == nil {
		s.perBuyer = map[int64]int{}
	}
	s.total++
	s.perBuyer[buyerID]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.total--
			if s.perBuyer[buyerID]--; s.perBuyer[buyerID] <= 0 {
				delete(s.perBuyer, buyerID)
			}
		})
	}, ""
}
