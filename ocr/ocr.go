// Package ocr is the adapter that reads the text of an uploaded invoice with the tools
// installed on the machine (DESIGN.md §3): poppler's pdftotext for PDFs that carry a text
// layer, and tesseract with the Japanese models for images and scanned PDFs (a scanner's
// page image taken out as it is with pdfimages), after the clean-up real uploads need:
// EXIF and 90° rotation, the red seal dropped out, a photographed sheet flattened (its
// perspective undone), deskew, contrast and binarisation for
// faxes and photos, the desk round a photographed sheet and the ruled lines of tables
// whitened, upscaling to about 300 DPI. Tesseract's words are put back into the page's
// rows, as pdftotext -layout prints them. It knows nothing of invoices: the domain
// package invoiceread turns the text into fields.
//
// Every tool runs with exec.CommandContext (no shell) under the Reader's timeout, on files
// in a temporary folder made for the call and removed after it. A missing tool or model is
// ErrUnavailable, so that the caller can mark the file "unavailable" and let the buyer type
// the fields.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"cardpay/pay"
)

// ErrUnavailable is wrapped by every error caused by a missing tool or model; the error's
// text names what is missing.
var ErrUnavailable = errors.New("ocr: tool unavailable")

// MaxPages is the most pages of a PDF that are read; uploads of more are refused before.
const MaxPages = 20

// MaxPixels bounds the images decoded here: every decoding goes through
// pay.DecodeImage, the upload's own check (pixels and decoding memory), so that the
// adapter is safe on its own too.
const MaxPixels = pay.MaxInvoiceImagePixels

// Media types Read accepts.
const (
	MediaPDF  = "application/pdf"
	MediaJPEG = "image/jpeg"
	MediaPNG  = "image/png"
)

// Sources of a Result.
const (
	SourcePDFText   = "pdftext"
	SourceTesseract = "tesseract"
)

// Reader runs the OCR tools. The zero value works: no timeout beyond the context's,
// temporary files under os.TempDir, tools found on PATH.
type Reader struct {
	// Timeout bounds one Read, tools and image work together (0: only ctx bounds it).
	Timeout time.Duration
	// TempDir is where the per-call folder is made ("" = os.TempDir()).
	TempDir string
	// Logger gets one line per page read (nil = slog.Default()).
	Logger *slog.Logger
	// ToolDir, when set, is the only folder the tools are taken from (instead of PATH):
	// deployments pin it, and tests point it at an empty folder.
	ToolDir string
}

// Line is one line of text with the confidence of its reading (0..1; 1 for a PDF's text layer).
type Line struct {
	Text       string
	Confidence float64
	Page       int // 1-based
	// Box is where the line is on the page image tesseract read, Words its words there:
	// what a Reading's Reread crops. Both are empty for a PDF's text layer.
	Box   image.Rectangle
	Words []Word
}

// Word is one of tesseract's words (a few characters of Japanese) with its box on the
// page image read and its confidence (0..1).
type Word struct {
	Text       string
	Box        image.Rectangle
	Confidence float64
}

// PageStat is what reading one page cost.
type PageStat struct {
	Page     int
	Source   string
	Duration time.Duration
	// MaxRSSKB is the peak resident memory of the tools run for this page (kB).
	MaxRSSKB int64
	// Rotation is the clockwise quarter turn applied (0, 90, 180, 270), Skew the degrees
	// of deskew, Vertical whether the page was read as vertical text.
	Rotation int
	Skew     float64
	Vertical bool
	// OneBit says the page came in black and white alone (a fax): a seal is as black as
	// the text there, and Crop.Seal has no grey to drop.
	OneBit bool
}

// Result is the text of a file.
type Result struct {
	// Text is the pages' texts joined with form feeds ("\f").
	Text string
	// Source is "pdftext" when every page came from the PDF's text layer, else "tesseract".
	Source string
	Pages  int
	Lines  []Line
	// Duration is the wall time of the whole Read.
	Duration time.Duration
	// MaxRSSKB is the peak resident memory of any tool run (kB); GoMaxRSSKB the peak of
	// this process (VmHWM), which includes the image clean-up done in Go.
	MaxRSSKB   int64
	GoMaxRSSKB int64
	PageStats  []PageStat

	// images are the prepared page images tesseract read, by page, in the call's folder:
	// a Reading's Reread crops them.
	images map[int]string
	// greys are the photos' pages in grey, before their threshold, as images lie: the
	// crops of a photo read them (prepare).
	greys map[int]string
}

// Available says what is missing for Read to work with the tools on PATH (nil: all there).
func Available() error { return (&Reader{}).Available(context.Background()) }

// Available says what is missing for this Reader (nil: all there).
func (r *Reader) Available(ctx context.Context) error {
	var missing []string
	for _, tool := range []string{"pdftotext", "pdftoppm", "tesseract"} {
		if _, err := r.tool(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		out, err := r.run(ctx, "", nil, "tesseract", "--list-langs")
		if err != nil {
			return err
		}
		langs := map[string]bool{}
		for _, l := range strings.Fields(string(out.stdout)) {
			langs[l] = true
		}
		for _, l := range []string{"jpn", "jpn_vert", "eng", "osd"} {
			if !langs[l] {
				missing = append(missing, "tessdata "+l)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s missing (go tool -modfile=tools/go.mod task ocr-tools installs them)", ErrUnavailable, strings.Join(missing, ", "))
	}
	return nil
}

// Read returns the text of a PDF, JPEG or PNG file.
func (r *Reader) Read(ctx context.Context, mediaType string, b []byte) (Result, error) {
	rd, err := r.Open(ctx, mediaType, b)
	if err != nil {
		return Result{}, err
	}
	rd.Close()
	return rd.Result, nil
}

// Reading is a file read by Open: its Result, with the prepared page images kept for
// Reread until Close.
type Reading struct {
	Result
	r   *Reader
	dir string
	// page is the last page image decoded for a crop (the fields of one page are re-read
	// one after the other).
	page   int
	pageIm *image.Gray
	greyIm *image.Gray // the page's grey (Result.greys), nil when it has none
}

// Close removes the page images; Reread cannot be called after it.
func (rd *Reading) Close() error { return os.RemoveAll(rd.dir) }

// Open reads a PDF, JPEG or PNG file as Read does and keeps what tesseract read for
// Reread: the caller must Close the Reading.
func (r *Reader) Open(ctx context.Context, mediaType string, b []byte) (_ *Reading, err error) {
	start := time.Now()
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	dir, err := os.MkdirTemp(r.TempDir, "ocr-")
	if err != nil {
		return nil, fmt.Errorf("ocr: temp dir: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()

	var res Result
	switch mediaType {
	case MediaPDF:
		res, err = r.readPDF(ctx, dir, b)
	case MediaJPEG, MediaPNG:
		res, err = r.readImageFile(ctx, dir, b)
	default:
		return nil, fmt.Errorf("ocr: unsupported media type %q", mediaType)
	}
	if err != nil {
		// A deadline shows as a killed tool; say it was the timeout.
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, err
	}
	res.Duration = time.Since(start)
	res.GoMaxRSSKB = selfMaxRSSKB()
	for _, p := range res.PageStats {
		res.MaxRSSKB = max(res.MaxRSSKB, p.MaxRSSKB)
	}
	r.logger().Info("ocr: read", "source", res.Source, "pages", res.Pages, "lines", len(res.Lines),
		"ms", res.Duration.Milliseconds(), "tool_max_rss_kb", res.MaxRSSKB)
	return &Reading{Result: res, r: r, dir: dir}, nil
}

func (r *Reader) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// tool finds a tool's path, or ErrUnavailable naming it.
func (r *Reader) tool(name string) (string, error) {
	if r.ToolDir != "" {
		p := filepath.Join(r.ToolDir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
		return "", fmt.Errorf("%w: %s not found in %s", ErrUnavailable, name, r.ToolDir)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %s not found on PATH (go tool -modfile=tools/go.mod task ocr-tools installs it)", ErrUnavailable, name)
	}
	return p, nil
}

type runOut struct {
	stdout, stderr []byte
	maxRSSKB       int64
}

// run runs a tool in dir with args, never through a shell, killed when ctx ends.
func (r *Reader) run(ctx context.Context, dir string, stdin io.Reader, name string, args ...string) (runOut, error) {
	path, err := r.tool(name)
	if err != nil {
		return runOut{}, err
	}
	if err := ctx.Err(); err != nil {
		return runOut{}, err
	}
	started := time.Now()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	// tesseract's OpenMP threads fight each other and the other jobs on small machines;
	// one thread per run is faster overall.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	var peak int64
	if err = cmd.Start(); err == nil {
		// The child's own peak memory. Its rusage Maxrss cannot be used: Go starts
		// children with vfork, and the kernel carries this process's high-water mark into
		// the child's figure at exec. /proc/<pid>/status VmHWM after Start is the child's.
		done := make(chan struct{})
		polled := make(chan int64, 1)
		go func() {
			var hwm int64
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				if v := procHWM(cmd.Process.Pid); v > hwm {
					hwm = v
				}
				select {
				case <-done:
					polled <- hwm
					return
				case <-tick.C:
				}
			}
		}()
		err = cmd.Wait()
		close(done)
		peak = <-polled
	}
	out := runOut{stdout: stdout.Bytes(), stderr: stderr.Bytes(), maxRSSKB: peak}
	// Each tool's run, for profiling a page's time (which pass costs what).
	r.logger().Debug("ocr: tool", "tool", name, "psm", psmOf(args), "ms", time.Since(started).Milliseconds(), "max_rss_kb", peak)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return out, fmt.Errorf("ocr: %s: %w", name, ctxErr)
		}
		msg := strings.TrimSpace(string(out.stderr))
		if strings.Contains(msg, "Failed loading language") || strings.Contains(msg, "Error opening data file") {
			return out, fmt.Errorf("%w: %s: %s", ErrUnavailable, name, lastLine(msg))
		}
		return out, fmt.Errorf("ocr: %s: %w: %s", name, err, lastLine(msg))
	}
	return out, nil
}

// psmOf is the page segmentation mode a tesseract run was asked for ("" for others).
func psmOf(args []string) string {
	for i, a := range args[:max(0, len(args)-1)] {
		if a == "--psm" {
			return args[i+1]
		}
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// selfMaxRSSKB is this process's peak resident memory (VmHWM), 0 when unknown.
func selfMaxRSSKB() int64 { return readHWM("/proc/self/status") }

// procHWM is a running child's peak resident memory so far (0 once it has exited).
func procHWM(pid int) int64 { return readHWM("/proc/" + strconv.Itoa(pid) + "/status") }

func readHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}
