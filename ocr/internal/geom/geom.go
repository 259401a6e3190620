// Package geom is the plane geometry the OCR clean-up and the invoice generator share:
// the perspective (homography) that maps a photographed sheet onto its page and back.
package geom

import "math"

// Homography returns the 3×3 projective map (h33 = 1) taking the points from onto to:
// u = (h0·x + h1·y + h2) / (h6·x + h7·y + 1), v = (h3·x + h4·y + h5) / (h6·x + h7·y + 1).
func Homography(from, to [4][2]float64) [8]float64 {
	var a [8][9]float64
	for i := range 4 {
		x, y, u, v := from[i][0], from[i][1], to[i][0], to[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for col := range 8 { // Gauss–Jordan with partial pivoting
		p := col
		for r := col + 1; r < 8; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[p][col]) {
				p = r
			}
		}
		a[col], a[p] = a[p], a[col]
		for r := range 8 {
			if r == col {
				continue
			}
			f := a[r][col] / a[col][col]
			for k := col; k < 9; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	var h [8]float64
	for i := range 8 {
		h[i] = a[i][8] / a[i][i]
	}
	return h
}

// Apply maps the point (x, y) with h.
func Apply(h [8]float64, x, y float64) (u, v float64) {
	w := h[6]*x + h[7]*y + 1
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}
