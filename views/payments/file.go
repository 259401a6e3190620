package payments

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }

// confidenceClass colours the mark: 高 success, 中 neutral, 低 attention.
func confidenceClass(label string) string {
	switch label {
	case "高":
		return "status-badge--success"
	case "低":
		return "status-badge--attention"
	}
	return "status-badge--neutral"
}
