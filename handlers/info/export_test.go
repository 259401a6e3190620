package info

// PolicyTextsForTest lists every text of each policy page (headings, paragraphs, items,
// the paragraphs after them and the links' labels), by path.
func PolicyTextsForTest() map[string][]string {
	out := map[string][]string{}
	for path, t := range policyTexts {
		var all []string
		for _, s := range t.sections {
			if s.heading != "" {
				all = append(all, s.heading)
			}
			all = append(all, s.paragraphs...)
			all = append(all, s.items...)
			all = append(all, s.after...)
			for _, l := range s.links {
				all = append(all, l.label)
			}
		}
		out[path] = all
	}
	return out
}
