package ocr

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"path/filepath"
	"slices"
)

// Tesseract's page segmentation (psm 3) sometimes leaves whole lines of a clean page
// out of its reading: on a generated invoice with a boxed total, 「ご請求額 16,500円」's
// label and the line under it, 「お支払期限：2025/10/31」, were not in the reading at all
// (psm 6 read them), and no label was left to place a crop. The ink of the page that no
// word of the reading covers is therefore looked for, and where it has the size of text,
// read again (recoverLost): all those parts at once, pasted one under the other on one
// image read as a block (psm 6), whose words go back to their places on the page and join
// the page's rows as if psm 3 had read them.

// Bounds of what is read again.
const (
	maxLost = 8 // parts of one page
	// lostMinConf is the least confidence (tesseract's 0–100) of a word read in a lost
	// part: a seal's remains, a logo or a photo's edge read as letters are dropped.
	lostMinConf = 60
)

// lostRegions are the parts of page g with ink that no word of lines covers and that
// have the size of a line of text: at least half a line high and at most four, at least
// a character wide and with a character's ink, inside the page's margins.
func lostRegions(g *image.Gray, lines []Line) []image.Rectangle {
	var hs []int
	for _, l := range lines {
		for _, w := range l.Words {
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) < 10 {
		return nil // too little read to say what a line is
	}
	slices.Sort(hs)
	lineH := hs[len(hs)/2]
	if lineH < 8 {
		return nil
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	cell := max(4, lineH/4)
	cw, ch := (w+cell-1)/cell, (h+cell-1)/cell
	hist, n := histogram(g)
	t := otsu(hist, n)
	ink := make([]int, cw*ch)
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			if v <= t {
				ink[(y/cell)*cw+x/cell]++
			}
		}
	}
	covered := make([]bool, cw*ch)
	cover := func(r image.Rectangle) {
		r = r.Inset(-lineH / 3)
		for cy := max(0, r.Min.Y/cell); cy <= min(ch-1, r.Max.Y/cell); cy++ {
			for cx := max(0, r.Min.X/cell); cx <= min(cw-1, r.Max.X/cell); cx++ {
				covered[cy*cw+cx] = true
			}
		}
	}
	for _, l := range lines {
		for _, wd := range l.Words {
			cover(wd.Box)
		}
	}
	minInk := max(2, cell*cell/30)
	lost := func(cx, cy int) bool { return !covered[cy*cw+cx] && ink[cy*cw+cx] >= minInk }

	// Runs of lost cells along each row, gaps of up to a line and a half bridged (the
	// spaces between words), joined with the runs they touch in the rows above.
	type run struct{ x0, x1, y, id int }
	parent := []int{}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	gap := max(1, 3*lineH/2/cell)
	var prev, all []run
	for cy := range ch {
		var cur []run
		for cx := 0; cx < cw; {
			if !lost(cx, cy) {
				cx++
				continue
			}
			x0, end := cx, cx
			for cx < cw && cx-end <= gap {
				if lost(cx, cy) {
					end = cx
				}
				cx++
			}
			cx = end + 1
			r := run{x0, end, cy, len(parent)}
			parent = append(parent, r.id)
			for _, p := range prev {
				if p.x0 <= r.x1 && r.x0 <= p.x1 {
					parent[find(r.id)] = find(p.id)
				}
			}
			cur = append(cur, r)
		}
		all = append(all, cur...)
		prev = cur
	}
	boxes := map[int]image.Rectangle{}
	inks := map[int]int{}
	for _, r := range all {
		id := find(r.id)
		b := image.Rect(r.x0*cell, r.y*cell, (r.x1+1)*cell, (r.y+1)*cell)
		boxes[id] = boxes[id].Union(b)
		for cx := r.x0; cx <= r.x1; cx++ {
			inks[id] += ink[r.y*cw+cx]
		}
	}
	margin := image.Rect(0, 0, w, h).Inset(max(w, h) / 50)
	var out []image.Rectangle
	for id, b := range boxes {
		b = b.Intersect(g.Rect)
		if b.Dy() < lineH/2 || b.Dy() > 4*lineH || b.Dx() < lineH || inks[id] < lineH*lineH/6 || !b.In(margin) {
			continue
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b image.Rectangle) int {
		if a.Min.Y != b.Min.Y {
			return a.Min.Y - b.Min.Y
		}
		return a.Min.X - b.Min.X
	})
	if len(out) > maxLost {
		out = out[:maxLost]
	}
	return out
}

// recoverLost reads the lost parts of page g (read as tsv by psm 3) again and answers
// the page's tsv with their words added, on the page's coordinates, in blocks of their
// own: parseTSV then joins them into the page's rows. Nil: no part was lost.
func (r *Reader) recoverLost(ctx context.Context, dir string, g *image.Gray, page int, tsv []byte, lines []Line) ([]byte, int64, error) {
	regions := lostRegions(g, lines)
	if len(regions) == 0 {
		return nil, 0, nil
	}
	// One image: each part with paper round it, one under the other.
	const pad = rereadMargin
	width, height := 0, pad
	tops := make([]int, len(regions))
	for i, b := range regions {
		width = max(width, b.Dx()+2*pad)
		tops[i] = height
		height += b.Dy() + pad
	}
	sheet := image.NewGray(image.Rect(0, 0, width, height))
	for i := range sheet.Pix {
		sheet.Pix[i] = 0xff
	}
	for i, b := range regions {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			copy(sheet.Pix[sheet.PixOffset(pad, tops[i]+y-b.Min.Y):], g.Pix[g.PixOffset(b.Min.X, y):g.PixOffset(b.Max.X, y)])
		}
	}
	file := filepath.Join(dir, fmt.Sprintf("lost%02d.png", page))
	if err := writePNG(file, sheet); err != nil {
		return tsv, 0, err
	}
	out, err := r.run(ctx, dir, nil, "tesseract", file, "stdout", "--dpi", "300", "-l", "jpn+eng", "--psm", "6", "tsv")
	if err != nil {
		return tsv, 0, err
	}
	var b bytes.Buffer
	b.Write(tsv)
	if len(tsv) > 0 && tsv[len(tsv)-1] != '\n' {
		b.WriteByte('\n')
	}
	for _, w := range wordRows(out.stdout) {
		if w.conf < lostMinConf {
			continue
		}
		n := w.n
		// The part the word's middle lies in.
		mid := n[7] + n[9]/2
		k := -1
		for i := range regions {
			if mid >= tops[i] && mid < tops[i]+regions[i].Dy() {
				k = i
			}
		}
		if k < 0 {
			continue
		}
		left := n[6] - pad + regions[k].Min.X
		top := n[7] - tops[k] + regions[k].Min.Y
		// Blocks numbered past the page's: each part's lines are lines of their own.
		fmt.Fprintf(&b, "5\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%g\t%s\n", page, 10000+k, n[3], n[4], n[5], left, top, n[8], n[9], w.conf, w.text)
	}
	return b.Bytes(), out.maxRSSKB, nil
}
